/**
 * The lifecycle end to end: a debt raised in a transaction is given its workflow by the outbox's
 * lifecycle consumer, moved through its life by the triggers (core/lifecycle/triggers.ts, as the sandbox simulation
 * and the portal call them) on the real lifecycle worker, and every event type it emits reaches a real HTTP receiver
 * through the real relay, the real delivery workflow and a real webhooks worker, signed with the organisation's
 * secret. Sandbox mode, so the `advance` trigger can run the plan's timers out and reach `plan.defaulted`.
 */
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';
import { EVENT_TYPES, toEventEnvelope, type EventRow } from '../../core/events/outbox';
import { createDebtLifecycleConsumer, DEBT_LIFECYCLE_CONSUMER } from '../../core/lifecycle/lifecycle-consumer';
import { createDebtTriggers, type DebtTriggers } from '../../core/lifecycle/triggers';
import { ensureCursor } from '../../core/events/cursor';
import type { Mode } from '../../core/platform/mode';
import { workflowIds } from '../../core/temporal/names';
import { WEBHOOK_DELIVERY_CONSUMER } from '../../core/webhooks/delivery-consumer';
import { type debtLifecycleWorkflow } from '../../workflows/debt-lifecycle';
import { stateQuery } from '../../workflows/lifecycle/messages';
import { inlineDebtBody } from '../support/debt-api';
import { startDeliveryStack, type DeliveryStack } from '../support/delivery-stack';
import { testLifecycle, type LifecycleStack } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver } from '../support/webhooks';
import { silentLogger } from '../support/logger';

const MODE: Mode = 'sandbox';
/** Every event a debt's lifecycle raises: not the ping, nor a refund (the payments path's, payment-refunds.test.ts). */
const LIFECYCLE_EVENT_TYPES = EVENT_TYPES.filter(
  (type) => type !== 'test.ping' && type !== 'payment.refunded' && !type.startsWith('placement.'),
);

/** Starts a consumer after everything committed so far: other suites' debts and events are not this test's. */
async function skipBacklog(consumer: string): Promise<void> {
  await ensureCursor(testDb(), { name: consumer, startAt: 'now' }, MODE);
  await testDb().raw(
    `update outbox_cursors set txid = greatest(txid, pg_snapshot_xmin(pg_current_snapshot())), seq = 0
      where consumer = ? and mode = ?`,
    [consumer, MODE],
  );
}

describe('every lifecycle event reaches a real receiver through the real delivery path', function () {
  this.timeout(120_000);
  let lifecycle: LifecycleStack;
  let delivery: DeliveryStack;
  let receiver: WebhookReceiver;
  let triggers: DebtTriggers;

  before(async () => {
    lifecycle = await testLifecycle();
    receiver = await startWebhookReceiver();
    await skipBacklog(DEBT_LIFECYCLE_CONSUMER);
    await skipBacklog(WEBHOOK_DELIVERY_CONSUMER);
    const client = lifecycle.client(MODE);
    const starter = createDebtLifecycleConsumer({
      logger: silentLogger('test'),
      mode: MODE,
      db: testDb(),
      client,
      taskQueue: lifecycle.taskQueue,
    });
    delivery = await startDeliveryStack(lifecycle.env, { mode: MODE, extraConsumers: [starter] });
    triggers = createDebtTriggers({ db: testDb(), client, mode: MODE, taskQueue: lifecycle.taskQueue });
  });
  after(async () => {
    await delivery?.stop();
    await receiver?.close();
  });

  it('debt.created to plan.defaulted, each delivered once per event and signed with the organisation’s secret', async () => {
    const { organization } = await createTestTenant({ mode: MODE });
    const org = organization.id;
    const secret = await configureReceiver(delivery.webhooks, org, receiver.url);
    const debt = await testDb().transaction((trx) =>
      createDebt(trx, org, inlineDebtBody({ originalPrincipal: '600' })),
    );

    // The consumer, not a trigger, starts the debt's workflow.
    const handle = lifecycle.client(MODE).workflow.getHandle<typeof debtLifecycleWorkflow>(workflowIds.debt(debt.id));
    await waitFor(async () => (await handle.query(stateQuery).catch(() => undefined))?.state.status, {
      timeoutMs: 30_000,
      what: 'the lifecycle consumer to start the debt’s workflow',
    });

    await triggers.accept(org, debt.id);
    const firstDueDate = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await triggers.agreePlan(org, debt.id, { instalmentCount: 3, frequency: 'Monthly', firstDueDate });
    await triggers.reportPayment(org, debt.id, {
      amount: '200',
      processorReference: `e2e-${debt.id}`,
      succeeded: true,
    });
    await triggers.advance(org, debt.id); // the second instalment's due date passes
    const { debt: defaulted } = await triggers.advance(org, debt.id); // its grace period ends
    expect(defaulted.status).to.equal('InArrears');
    await triggers.dispute(org, debt.id, 'The second instalment was never due.');
    const final = await triggers.resolveDispute(org, debt.id, 'upheld');
    expect(final.status).to.equal('WrittenOff');

    const rows = await testDb()<EventRow>('events')
      .where({ organization_id: org })
      .orderBy([{ column: 'txid' }, { column: 'seq' }]);
    const events = rows.map(toEventEnvelope);
    expect([...new Set(events.map((e) => e.type))].sort()).to.deep.equal([...LIFECYCLE_EVENT_TYPES].sort());

    const received = await waitFor(
      () => {
        const arrived = receiver.requests.filter((r) => events.some((e) => e.id === r.body.id));
        return arrived.length >= events.length && arrived;
      },
      { timeoutMs: 60_000, what: `all ${events.length} events at the receiver` },
    );
    expect(received.map((r) => r.body.id).sort()).to.deep.equal(events.map((e) => e.id).sort());
    for (const request of received) {
      expect(verifySignature(request.signature, request.rawBody, secret), request.body.type).to.deep.include({
        ok: true,
      });
      const event = events.find((e) => e.id === request.body.id)!;
      expect(JSON.parse(JSON.stringify(event)), event.type).to.deep.equal(request.body);
    }
    // Marked after the receiver's answer, so a moment after the last request arrived.
    await waitFor(
      async () => {
        const statuses = await testDb()('webhook_deliveries').where({ organization_id: org }).pluck('status');
        return statuses.length === events.length && statuses.every((status) => status === 'Succeeded');
      },
      { what: 'every delivery to be Succeeded' },
    );
  });
});
