import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { hashKeySecret } from '../../core/access/api-keys';
import type { Client } from '@temporalio/client';
import { runCommand, type CliIo } from '../../scripts/cli/commands';
import { callerFor, raiseDebt } from '../support/debt-api';
import { testLifecycle } from '../support/lifecycle-stack';
import { createTestTenant } from '../support/tenants';
import { startTestServer, type TestServer } from '../support/app';
import { testEnv } from '../support/env';
import { testDb } from '../support/resources';
import { foundRow } from '../support/rows';

const run = promisify(execFile);

async function cli(
  args: string[],
  lifecycle?: { client: Client; taskQueue: string },
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    db: testDb(),
    mode: 'production',
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    secretBox: () => {
      throw new Error('these commands need no secret box');
    },
    temporal: () => {
      if (!lifecycle) throw new Error('this command needs no Temporal client');
      return lifecycle.client;
    },
    lifecycleTaskQueue: lifecycle?.taskQueue,
  };
  const code = await runCommand(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('Operator CLI', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('creates an organisation, mints a key printed once and stored only as a hash, lists and revokes it', async () => {
    const org = await cli(['org', 'create', '--name', 'CLI Lending']);
    expect(org.code).to.equal(0);
    const organizationId = (JSON.parse(org.out) as { id: string }).id;

    const minted = await cli([
      'key',
      'create',
      '--org',
      organizationId,
      '--name',
      'ops',
      '--scopes',
      'debts:read,branding:read',
      '--read-only',
      '--hourly-limit',
      '10',
    ]);
    expect(minted.code).to.equal(0);
    const secret = /(ak_live_[A-Za-z0-9]{40})/.exec(minted.out)?.[1];
    expect(secret, minted.out).to.be.a('string');
    const row = await foundRow(testDb()('api_keys').where({ organization_id: organizationId }).first(), 'key');
    expect(row.secret_hash).to.equal(hashKeySecret(secret!));
    expect(JSON.stringify(row)).not.to.contain(secret);
    expect(row).to.include({ read_only: true, hourly_limit: 10, prefix: secret!.slice(0, 16) });
    expect(row.scopes).to.deep.equal(['debts:read', 'branding:read']);

    const auth = { authorization: `Bearer ${secret}` };
    expect((await fetch(`${server.baseUrl}/v1/organization`, { headers: auth })).status).to.equal(200);

    const listed = await cli(['key', 'list', '--org', organizationId]);
    expect(listed.out)
      .to.contain(`${secret!.slice(0, 16)}…`)
      .and.to.contain('active')
      .and.not.to.contain(secret);

    const revoked = await cli(['key', 'revoke', '--id', row.id]);
    expect(revoked.code).to.equal(0);
    expect((await cli(['key', 'list', '--org', organizationId])).out).to.contain('revoked');
    expect((await cli(['key', 'revoke', '--id', row.id])).code).to.equal(64);
  });

  it('rejects bad arguments with a message and exit code 64', async () => {
    const cases: [string[], RegExp][] = [
      [[], /no command given/],
      [['org', 'explode'], /unknown command: org explode/],
      [['org', 'create'], /--name is required/],
      [['key', 'create', '--org', 'nope', '--name', 'x', '--scopes', 'all'], /--org must be a UUID/],
      [
        ['key', 'create', '--org', '01a20200-fe06-7489-94ac-d7707cd6842f', '--name', 'x', '--scopes', 'debts:eat'],
        /unknown scope\(s\): debts:eat|no organisation/,
      ],
      [['key', 'list', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).to.equal(64);
      expect(result.err, args.join(' ')).to.match(message).and.to.contain('usage:');
    }
  });

  it('runs as a process: `npm run cli` exits non-zero on a bad --mode', async () => {
    const error = await run('npm', ['run', '-s', 'cli', '--', 'org', 'list', '--mode', 'staging'], {
      env: { ...process.env, DATABASE_URL: testEnv.databaseUrl },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((error as { code: number }).code).to.equal(64);
    expect((error as { stderr: string }).stderr).to.contain('--mode must be production or sandbox');
  });

  it('lifecycle backfill starts the workflows of open debts once; debt write-off writes one off through it', async () => {
    const stack = await testLifecycle();
    const lifecycle = { client: stack.client('production'), taskQueue: stack.taskQueue };
    const tenant = await createTestTenant();
    const debt = await raiseDebt(callerFor(server.baseUrl, tenant));
    const org = tenant.organization.id;
    const first = await cli(['lifecycle', 'backfill', '--org', org], lifecycle);
    expect([first.code, JSON.parse(first.out)]).to.deep.equal([
      0,
      { started: 1, alreadyRunning: 0, completedButOpen: [] },
    ]);
    const again = await cli(['lifecycle', 'backfill', '--org', org], lifecycle);
    expect(JSON.parse(again.out)).to.deep.equal({ started: 0, alreadyRunning: 1, completedButOpen: [] });
    const written = await cli(['debt', 'write-off', '--org', org, '--id', debt.id], lifecycle);
    expect(written.code, written.err).to.equal(0);
    expect((JSON.parse(written.out) as { status: string }).status).to.equal('WrittenOff');
    const twice = await cli(['debt', 'write-off', '--org', org, '--id', debt.id], lifecycle);
    expect([twice.code, twice.err]).to.deep.equal([
      1,
      `error: invalid_state: ${'The debt is WrittenOff: its life has ended.'}`,
    ]);
  });
});
