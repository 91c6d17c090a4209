/**
 * `GET /v1/sandbox/reset` and the answer of `POST /v1/sandbox/reset`: where the tenant's reset
 * stands (last use, next idle reset, last reset, whether one asked for is under way), read from PostgreSQL, with no
 * workflow id. The test app's reset workflows run on a queue no worker serves, so a requested reset stays
 * `Requested` until the test runs the real reset itself (core/sandbox/reset-tenant.ts, against the dev server).
 */
import { expect } from 'chai';
import { resetSandboxTenant } from '../../core/sandbox/reset-tenant';
import { workflowIds } from '../../core/temporal/names';
import { startTestServer, type TestServer } from '../support/app';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem } from '../support/debt-api';
import { testLifecycle } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

type ResetStatus = { status: string; lastUsedAt: string; nextResetAt: string; lastResetAt: string | null };

const WEEK = 7 * 86_400_000;
const plusWeek = (iso: string) => new Date(Date.parse(iso) + WEEK).toISOString();

describe('Sandbox reset status: GET /v1/sandbox/reset, and what POST answers', function () {
  this.timeout(60_000);
  const ctx = useApiSuite({ mode: 'sandbox' });

  const status = async () => {
    const res = await ctx.api<ResetStatus>('GET', '/v1/sandbox/reset');
    expect(res.status, res.text).to.equal(200);
    expect(Object.keys(res.body).sort()).to.deep.equal(['lastResetAt', 'lastUsedAt', 'nextResetAt', 'status']);
    expect(res.text).to.not.contain(workflowIds.sandboxReset(ctx.tenant.organization.id));
    expect(res.body.nextResetAt).to.equal(plusWeek(res.body.lastUsedAt));
    return res.body;
  };

  it('shows the last recorded use of the tenant’s keys, the idle reset a week after it, and no reset yet', async () => {
    const first = await status();
    expect(first).to.include({ status: 'Scheduled', lastResetAt: null });
    // The first request's use is recorded in the background; once it is, it is the last use shown.
    const recorded = await waitFor(
      async () => (await testDb()('api_keys').where({ id: ctx.tenant.keyId }).first('last_used_at'))?.last_used_at,
      { what: 'the key’s use to be recorded' },
    );
    expect((await status()).lastUsedAt).to.equal(recorded.toISOString());
  });

  it('POST answers Requested with the same shape until the reset commits, then GET shows it done', async () => {
    const org = ctx.tenant.organization.id;
    const asked = await ctx.api<ResetStatus>('POST', '/v1/sandbox/reset');
    expect(asked.status, asked.text).to.equal(202);
    expect(asked.body.status).to.equal('Requested');
    expect(asked.body).to.not.have.property('workflowId');
    expect(asked.body.nextResetAt).to.equal(plusWeek(asked.body.lastUsedAt));
    expect((await status()).status).to.equal('Requested');

    // The reset the workflow would run, for real: wiped and reseeded, its commit recorded.
    const stack = await testLifecycle();
    const deps = { db: testDb(), client: stack.client('sandbox'), lifecycleTaskQueue: stack.taskQueue };
    const report = await resetSandboxTenant(deps, org, new Date());
    expect(report.outcome).to.equal('reset');
    const done = await status();
    expect(done.status).to.equal('Scheduled');
    expect(done.lastResetAt).to.be.a('string');
    // The reset followed every recorded use: this request is the use that arms the next reset.
    expect(Date.parse(done.lastUsedAt)).to.be.at.least(Date.parse(done.lastResetAt!));
  });

  it('a reset that started before the request does not count: Requested until one that started after it', async () => {
    const org = ctx.tenant.organization.id;
    expect((await ctx.api('POST', '/v1/sandbox/reset')).status).to.equal(202);
    const resetAt = (offset: string) =>
      testDb()('organizations')
        .where({ id: org })
        .update({ sandbox_reset_at: testDb().raw(`sandbox_reset_requested_at + interval '${offset}'`) });
    await resetAt('-1 millisecond'); // under way when the request came, committed after it
    expect((await status()).status).to.equal('Requested');
    await resetAt('1 millisecond');
    expect((await status()).status).to.equal('Scheduled');
  });

  it('needs debts:read (a read-only key will do), and is not the other tenant’s', async () => {
    const reader = callerFor(ctx.server.baseUrl, await createTestTenant({ mode: 'sandbox', readOnly: true }));
    expect((await reader('GET', '/v1/sandbox/reset')).status).to.equal(200);
    const noScope = await createTestTenant({ mode: 'sandbox', scopes: ['webhooks:read'] });
    expectProblem(await callerFor(ctx.server.baseUrl, noScope)('GET', '/v1/sandbox/reset'), 403, 'forbidden');
    // Another tenant's request leaves this one's status as it was.
    const other = await createTestTenant({ mode: 'sandbox' });
    expect((await callerFor(ctx.server.baseUrl, other)('POST', '/v1/sandbox/reset')).status).to.equal(202);
    expect((await status()).status).to.equal('Scheduled');
  });

  describe('on the production host', () => {
    let production: TestServer;
    before(async () => {
      production = await startTestServer();
    });
    after(async () => await production.close());

    it('answers 404 not_found: sandbox only', async () => {
      const api = callerFor(production.baseUrl, await createTestTenant());
      expectProblem(await api('GET', '/v1/sandbox/reset'), 404, 'not_found');
    });
  });
});
