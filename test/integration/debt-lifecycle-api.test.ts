/**
 * The debt lifecycle behind the API, on a real Temporal dev server with the real lifecycle worker: a recall is
 * recorded by the debt's workflow before the API answers; a request refused for another field recalls nothing; the
 * outbox consumer gives every raised debt its workflow exactly once; the backfill gives older debts theirs.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { expect } from 'chai';
import type { OutboxEvent } from '../../core/events/consumer';
import { ensureCursor } from '../../core/events/cursor';
import { takeBatch } from '../../core/events/relay';
import { backfillDebtWorkflows } from '../../core/lifecycle/backfill';
import { createDebtLifecycleConsumer, DEBT_LIFECYCLE_CONSUMER } from '../../core/lifecycle/lifecycle-consumer';
import { debtWorkflowStartOptions } from '../../core/lifecycle/workflow-start';
import { SEARCH_ATTRIBUTE_KEYS, WORKFLOW_TYPES, workflowIds } from '../../core/temporal/names';
import { type debtLifecycleWorkflow } from '../../workflows/debt-lifecycle';
import { stateQuery } from '../../workflows/lifecycle/messages';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, raiseDebt, type Debt } from '../support/debt-api';
import { testLifecycle } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { waitFor } from '../support/wait';
import { silentLogger } from '../support/logger';

describe('the debt lifecycle behind the API', function () {
  this.timeout(60_000);
  const ctx = useApiSuite();

  async function workflowOf(debtId: string) {
    const stack = await testLifecycle();
    return stack.client('production').workflow.getHandle<typeof debtLifecycleWorkflow>(workflowIds.debt(debtId));
  }

  it('PATCH status=Closed answers after the debt’s workflow recorded Closed and ended, with one debt.updated', async () => {
    const debt = await raiseDebt(ctx.api);
    const res = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.status).to.equal('Closed');
    const handle = await workflowOf(debt.id);
    const final = await handle.result();
    expect(final.state.status).to.equal('Closed');
    const description = await handle.describe();
    expect(description.status.name).to.equal('COMPLETED');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.debtStatus)).to.equal('Closed');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.organizationId)).to.equal(
      ctx.tenant.organization.id,
    );
    expect(description.priority?.fairnessKey, 'fairness key').to.equal(ctx.tenant.organization.id);
    const events = await testDb()('events').whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debt.id]).select('type');
    expect(events.map((e) => e.type).sort()).to.deep.equal(['debt.created', 'debt.updated']);
  });

  it('a PATCH that changes a field and recalls is one change: one debt.updated with both, and the answer is it', async () => {
    const debt = await raiseDebt(ctx.api);
    const res = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { clientReference: 'LOAN-77', status: 'Closed' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ clientReference: 'LOAN-77', status: 'Closed' });
    const updates = await testDb()('events')
      .where({ type: 'debt.updated' })
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debt.id])
      .select<{ data: { debt: Debt } }[]>('data');
    expect(updates.map((e) => e.data.debt)).to.deep.equal([res.body]);
    expect(Date.parse(res.body.updatedAt)).to.be.greaterThan(Date.parse(debt.updatedAt));
    // Sent again: nothing changes, nothing is emitted, the workflow (finished) is not asked.
    const again = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, {
      clientReference: 'LOAN-77',
      status: 'Closed',
    });
    expect(again.body).to.deep.equal(res.body);
    const count = await testDb()('events')
      .where({ type: 'debt.updated' })
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debt.id])
      .count<{ n: string }[]>({ n: '*' });
    expect(Number(count[0]!.n)).to.equal(1);
  });

  it('refuses a recall combined with a change the recalled debt cannot take, and recalls nothing', async () => {
    const debt = await raiseDebt(ctx.api, { originalPrincipal: 100 });
    await testDb()('debts').where({ id: debt.id }).update({ status: 'Accepted' });
    const res = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed', originalPrincipal: 120 });
    expectProblem(res, 409, 'invalid_state');
    expect((await ctx.api<Debt>('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('Accepted');
    const handle = await workflowOf(debt.id);
    const missing = await handle.describe().catch((err: unknown) => err);
    expect(missing).to.be.instanceOf(WorkflowNotFoundError);
  });

  it('a recall with an Idempotency-Key replays the saved answer and recalls once', async () => {
    const debt = await raiseDebt(ctx.api);
    const headers = { 'Idempotency-Key': `recall-${debt.id}` };
    const first = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' }, headers);
    const again = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' }, headers);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.text).to.equal(first.text);
    const updates = await testDb()('events')
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [debt.id])
      .where({ type: 'debt.updated' });
    expect(updates).to.have.length(1);
  });

  async function cursorBefore(eventId: string): Promise<void> {
    await testDb().raw(
      `update outbox_cursors c set txid = e.txid, seq = e.seq - 1
         from events e where e.id = ? and c.consumer = ? and c.mode = 'production'`,
      [eventId, DEBT_LIFECYCLE_CONSUMER],
    );
  }

  it('the outbox consumer starts debt-<id> for each debt.created, once, even when its batch is taken twice', async () => {
    const stack = await testLifecycle();
    const consumer = createDebtLifecycleConsumer({
      logger: silentLogger('test'),
      mode: 'production',
      db: testDb(),
      client: stack.client('production'),
      taskQueue: stack.taskQueue,
    });
    await ensureCursor(testDb(), consumer, 'production');
    const raised = await raiseDebt(ctx.api);
    const [created] = await testDb()('events')
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [raised.id])
      .where({ type: 'debt.created' })
      .select('id');
    const debt = { ...raised, createdEventId: created!.id };
    // The consumer's cursor is shared by every run on this database: start it just before this debt's event.
    await cursorBefore(debt.createdEventId);
    while ((await takeBatch(testDb(), 'production', consumer, 500)) > 0);
    const handle = await workflowOf(debt.id);
    await waitFor(async () => (await handle.query(stateQuery).catch(() => undefined))?.state.status, {
      what: 'the debt’s workflow to load its state',
    });
    expect((await handle.query(stateQuery)).state.status).to.equal('PendingAssignment');
    const firstRun = (await handle.describe()).runId;
    // As after a crash before the cursor moved: the same batch is taken again.
    await cursorBefore(debt.createdEventId);
    while ((await takeBatch(testDb(), 'production', consumer, 500)) > 0);
    await consumer.stop!(); // its starts made and recorded
    expect((await handle.describe()).runId).to.equal(firstRun);
  });

  it('a start lost with its process (killed after the batch committed) is made by the next sweep, of any worker', async () => {
    const stack = await testLifecycle();
    const options = {
      logger: silentLogger('test'),
      mode: 'production' as const,
      db: testDb(),
      client: stack.client('production'),
      taskQueue: stack.taskQueue,
    };
    const dying = createDebtLifecycleConsumer(options);
    const raised = await raiseDebt(ctx.api);
    const [created] = await testDb()('events')
      .whereRaw(`data::jsonb -> 'debt' ->> 'id' = ?`, [raised.id])
      .where({ type: 'debt.created' })
      .select<OutboxEvent[]>('id', 'type', 'organization_id as organizationId', 'txid', 'seq');
    // The batch commits, and the process dies before its after-commit step starts the workflow.
    await testDb().transaction((trx) => dying.consume(trx, [created!]));
    const handle = await workflowOf(raised.id);
    expect(await handle.describe().catch((err: unknown) => err)).to.be.instanceOf(WorkflowNotFoundError);

    const survivor = createDebtLifecycleConsumer(options); // another process, or the same one restarted
    await survivor.sweep!();
    await waitFor(async () => (await handle.describe().catch(() => undefined))?.status.name === 'RUNNING', {
      what: 'the survivor to start the lost start’s workflow',
    });
    await survivor.stop!();
    // The recorded start goes once the workflow's first task has loaded the debt.
    await waitFor(async () => !(await testDb()('lifecycle_pending_starts').where({ debt_id: raised.id }).first()), {
      what: 'the workflow’s first task to take its recorded start',
    });
  });

  it('the backfill gives open debts without a workflow theirs, and is harmless to run again', async () => {
    const stack = await testLifecycle();
    const debt = await raiseDebt(ctx.api);
    const deps = {
      db: testDb(),
      client: stack.client('production'),
      mode: 'production' as const,
      taskQueue: stack.taskQueue,
      organizationId: ctx.tenant.organization.id,
    };
    const first = await backfillDebtWorkflows(deps);
    expect(first).to.deep.equal({ started: 1, alreadyRunning: 0, completedButOpen: [] });
    const handle = await workflowOf(debt.id);
    const status = await waitFor(async () => (await handle.query(stateQuery).catch(() => undefined))?.state.status, {
      what: 'the backfilled workflow to load its state',
    });
    expect(status).to.equal('PendingAssignment');
    const second = await backfillDebtWorkflows(deps);
    expect(second).to.deep.equal({ started: 0, alreadyRunning: 1, completedButOpen: [] });
  });

  it('a terminated run is brought back: a trigger starts a new one from the row, and so does the backfill', async () => {
    const stack = await testLifecycle();
    const [byTrigger, byBackfill] = [await raiseDebt(ctx.api), await raiseDebt(ctx.api)];
    for (const debt of [byTrigger, byBackfill]) {
      const handle = await workflowOf(debt.id);
      const start = { debtId: debt.id, organizationId: ctx.tenant.organization.id };
      await stack
        .client('production')
        .workflow.start(WORKFLOW_TYPES.debtLifecycle, debtWorkflowStartOptions(start, 'production', stack.taskQueue))
        .catch(() => undefined); // the consumer may have started it already
      await handle.terminate('an operator stopped it');
      expect((await handle.describe()).status.name).to.equal('TERMINATED');
    }

    // Before (REJECT_DUPLICATE) every trigger answered 503 for good.
    const accepted = await ctx.api<Debt>('PATCH', `/v1/debts/${byTrigger.id}`, { status: 'Closed' });
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.body.status).to.equal('Closed');

    const report = await backfillDebtWorkflows({
      db: testDb(),
      client: stack.client('production'),
      mode: 'production',
      taskQueue: stack.taskQueue,
      organizationId: ctx.tenant.organization.id,
    });
    expect(report).to.deep.equal({ started: 1, alreadyRunning: 0, completedButOpen: [] });
    const revived = await workflowOf(byBackfill.id);
    expect((await revived.describe()).status.name).to.equal('RUNNING');
    const status = await waitFor(async () => (await revived.query(stateQuery).catch(() => undefined))?.state.status, {
      what: 'the new run to load the debt’s state',
    });
    expect(status).to.equal('PendingAssignment');
  });

  it('a completed run stays closed: the backfill reports a debt the database still holds open, and starts nothing', async () => {
    const stack = await testLifecycle();
    const debt = await raiseDebt(ctx.api);
    expect((await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' })).status).to.equal(200);
    await (await workflowOf(debt.id)).result();
    await testDb()('debts').where({ id: debt.id }).update({ status: 'Accepted' }); // the disagreement, by hand
    const report = await backfillDebtWorkflows({
      db: testDb(),
      client: stack.client('production'),
      mode: 'production',
      taskQueue: stack.taskQueue,
      organizationId: ctx.tenant.organization.id,
    });
    expect(report).to.deep.equal({ started: 0, alreadyRunning: 0, completedButOpen: [debt.id] });
    expect((await (await workflowOf(debt.id)).describe()).status.name).to.equal('COMPLETED');
  });
});
