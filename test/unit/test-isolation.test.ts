/**
 * The tests keep off the development stack (test/support/isolation.ts): a process a test would start against one of
 * its ports is refused before it starts, and this process's own connections to them fail with a message saying so.
 */
import net from 'node:net';
import { expect } from 'chai';
import pg from 'pg';
import { devStackPorts, isolatedEnv, refuseDevStackConnections } from '../support/isolation';

/** The error a connection from this process to 127.0.0.1:`port` ends with, or undefined when it connects. */
function connectError(port: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', resolve);
  });
}

describe('tests keep off the development stack', () => {
  before(() => refuseDevStackConnections()); // the root hook's guard, installed here too when run alone

  const safe = {
    DATABASE_URL: 'postgres://u:p@127.0.0.1:5433/t',
    REDIS_URL: 'redis://127.0.0.1:6380/3',
    TEMPORAL_ADDRESS: '127.0.0.1:40001',
    SMTP_URL: 'smtp://127.0.0.1:40002',
    PORT: '40003',
    METRICS_PORT: '0',
  };

  it("knows the stack's ports from the configuration's own defaults", () => {
    const ports = [...devStackPorts().keys()];
    for (const port of [5432, 6379, 7233, 1025, 1080, 3000, 3001, 9464, 9465]) expect(ports).to.include(port);
    expect(ports).not.to.include(5433); // the tests' own PostgreSQL
    expect(ports).not.to.include(6380); // the tests' own Redis
  });

  it('passes an environment that names only the test’s own services', () => {
    expect(isolatedEnv(safe, 'api')).to.include(safe);
    const worker = { ...safe, WORKER_MODES: 'production', PRODUCTION_DATABASE_URL: safe.DATABASE_URL };
    expect(isolatedEnv(worker, 'worker')).to.include(worker);
  });

  it('refuses a process that would reach a development port, by a value or by a default left unset', () => {
    expect(() => isolatedEnv({ ...safe, SMTP_URL: 'smtp://localhost:1025' }, 'api')).to.throw(/SMTP relay.*1025/);
    expect(() => isolatedEnv({ ...safe, DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/t' }, 'api')).to.throw(
      /database.*5432/,
    );
    expect(() => isolatedEnv({ ...safe, TEMPORAL_ADDRESS: '127.0.0.1:7233' }, 'api')).to.throw(/Temporal/);
    // A worker serving the sandbox mode without a database named for it would use the development default.
    const worker = { ...safe, WORKER_MODES: 'production,sandbox', PRODUCTION_DATABASE_URL: safe.DATABASE_URL };
    expect(() => isolatedEnv(worker, 'worker')).to.throw(/sandbox database.*5432/);
    const { REDIS_URL: _unset, ...noRedis } = safe;
    expect(() => isolatedEnv({ ...noRedis, REDIS_URL: undefined }, 'api')).to.throw(/Redis.*6379/);
  });

  it("fails this process's connections to the stack's ports, whatever client makes them", async () => {
    const refused = await connectError(1025);
    expect(refused?.message).to.match(/development SMTP relay/);
    const client = new pg.Client({
      connectionString: 'postgres://u:p@127.0.0.1:5432/t',
      connectionTimeoutMillis: 5_000,
    });
    const error = await client.connect().then(
      () => undefined,
      (err: Error) => err,
    );
    await client.end().catch(() => undefined);
    expect(error?.message).to.match(/127\.0\.0\.1:5432, the development .*database/);
  });

  it('leaves every other port alone', async () => {
    const server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      expect(await connectError((server.address() as net.AddressInfo).port)).to.equal(undefined);
    } finally {
      server.close();
    }
  });
});
