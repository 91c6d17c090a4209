/**
 * Starts the real Koa app on an ephemeral port against the real test database and Redis.
 * Logs are captured in memory so tests can assert on what is (and is not) logged.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type AppDeps, type BuiltApp } from '../../api/app';
import { answerUnparsableRequests } from '../../api/http/client-errors';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { createMetricsServer } from '../../core/platform/metrics-server';
import { loadConfig, type Config, type Mode } from '../../core/platform/config';
import { createLogger } from '../../core/platform/logger';
import { createSecretBox } from '../../core/platform/secret-box';
import { testEnv } from './env';
import { testDebtTriggers, testPlacementRuns, testSandboxResets } from './lifecycle-stack';
import { testDb, testRedis } from './resources';

export interface TestServer {
  baseUrl: string;
  /** The internal metrics endpoint's URL (`…/metrics`), served on its own port as in production. */
  metricsUrl: string;
  config: Config;
  built: BuiltApp;
  /** The listening server, for tests that watch its connections (e.g. how much of a body the API has read). */
  httpServer: Server;
  logLines: () => Record<string, unknown>[];
  rawLog: () => string;
  close: () => Promise<void>;
}

export interface TestServerOptions {
  mode?: Mode;
  env?: NodeJS.ProcessEnv;
  deps?: Partial<AppDeps>;
}

/** Where test servers keep documents (config.ts appends the mode): a scratch directory shared by the test run. */
export const TEST_DOCUMENT_DIR = path.join(tmpdir(), 'client-api-test-documents');

/** The store a test server of `mode` uses by default, for workers and checks that must see the same objects. */
export function testDocumentStore(mode: Mode): LocalDocumentStore {
  return new LocalDocumentStore(path.join(TEST_DOCUMENT_DIR, mode));
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const config = loadConfig({
    APP_ENV: 'test',
    API_MODE: options.mode ?? 'production',
    DATABASE_URL: testEnv.databaseUrl,
    REDIS_URL: testEnv.redisUrl,
    LOG_LEVEL: 'info',
    // Uploaded documents go to a scratch directory, never the working tree's .data/.
    DOCUMENT_DIR: TEST_DOCUMENT_DIR,
    ...options.env,
  });
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger({ level: config.logLevel, name: 'test-api', destination });
  const built = createApp({
    config,
    logger,
    db: testDb(),
    redis: testRedis(),
    secretBox: createSecretBox(config.webhooks.secretKeys),
    // Tests that care about Temporal's health pass a real check (see health.test.ts).
    checkTemporal: () => Promise.reject(new Error('no Temporal server wired into this test app')),
    debtTriggers: testDebtTriggers(config.mode),
    placementRuns: testPlacementRuns(config.mode),
    ...(config.mode === 'sandbox' ? { sandboxResets: testSandboxResets() } : {}),
    // Every test request comes from 127.0.0.1; unauthenticated-traffic.test.ts tests the limit itself.
    failedAuthLimit: 1_000_000,
    ...options.deps,
  });
  const server: Server = await new Promise((resolve) => {
    const s = built.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  answerUnparsableRequests(server, config.errorBaseUrl);
  const { port } = server.address() as AddressInfo;
  const metricsServer = createMetricsServer(built.metrics.registry, logger);
  await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve));
  const metricsPort = (metricsServer.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    config,
    built,
    httpServer: server,
    rawLog: () => chunks.join(''),
    logLines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    close: () =>
      new Promise<void>((resolve, reject) => {
        metricsServer.close();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
