/**
 * The test-mode processor's card that fails later (4000000000000341), on the time-skipping server at the real delay:
 * `test-payment-<attemptId>` waits TEST_PAYMENT_FAILURE_DELAY_MS, then settles the attempt as failed through the real
 * debt lifecycle workflow and its activities against the test database: a Failed Payment transaction, no
 * `payment.received`, the debt unchanged. A debt closed meanwhile refuses the report: recorded on the attempt, and the
 * workflow ends instead of retrying for ever. Its history holds ids only.
 * `RECORD_HISTORIES=1` also writes these runs' histories for test-payment-failure-replay.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { createTestPaymentActivities } from '../../activities/test-payment';
import { createDebt } from '../../core/debts/debt-creation';
import { createDebtTriggers, type DebtTriggers } from '../../core/lifecycle/triggers';
import { findAttempt } from '../../core/payments/attempts';
import { createLaterFailureScheduler } from '../../core/payments/later-failure';
import { createTestModeProcessor, TEST_CARDS } from '../../core/payments/test-mode-processor';
import type { PaymentProcessor } from '../../core/payments/processor';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import {
  TEST_PAYMENT_FAILURE_DELAY_MS,
  testPaymentFailureWorkflow,
  testPaymentStatusQuery,
} from '../../workflows/test-payment-failure';
import { historyToJson } from '../support/history-json';
import { inlineDebtBody } from '../support/debt-api';
import { lifecycleBundle } from '../support/lifecycle-histories';
import { testDb } from '../support/resources';
import { startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';

const TEST_PAYMENT_HISTORIES_DIR = join(__dirname, 'histories', 'test-payment');

describe('testPaymentFailureWorkflow on the time-skipping server (the real delay)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  let triggers: DebtTriggers;
  let processor: PaymentProcessor;
  const taskQueue = uniqueTaskQueue(TASK_QUEUES.lifecycle);

  before(async () => {
    env = await startTimeSkipping();
    triggers = createDebtTriggers({ db: testDb(), client: env.client, mode: 'production', taskQueue });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: await lifecycleBundle(),
      activities: {
        ...createDebtLifecycleActivities({ db: testDb() }),
        ...createTestPaymentActivities({ db: testDb(), triggers }),
      },
    });
    running = worker.run();
    processor = createTestModeProcessor({
      db: testDb(),
      triggers,
      scheduleLaterFailure: createLaterFailureScheduler({ client: env.client, taskQueue }),
    });
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  /** A fresh tenant's debt of 600 AUD, with its debtor's email for the history check. */
  async function raise() {
    const { organization } = await createTestTenant();
    const body = inlineDebtBody({ originalPrincipal: '600' });
    const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, body));
    return { organizationId: organization.id, debtId: debt.id, email: String(body.debtorEmail) };
  }

  async function payFailingLater(organizationId: string, debtId: string, idempotencyKey = 'form-1') {
    return processor.start({
      organizationId,
      debtId,
      amount: '200',
      currency: 'AUD',
      idempotencyKey,
      testCardNumber: '4000 0000 0000 0341',
    });
  }

  const eventTypes = async (organizationId: string) =>
    (await testDb()('events').where({ organization_id: organizationId }).orderBy('seq')).map(
      (e: { type: string }) => e.type,
    );
  const transactionsOf = (debtId: string) =>
    testDb()('transactions').where({ debt_id: debtId }).select('direction', 'status', 'type', 'amount');

  function record(name: string, history: Parameters<typeof historyToJson>[0]) {
    if (process.env.RECORD_HISTORIES === '1') {
      writeFileSync(join(TEST_PAYMENT_HISTORIES_DIR, `${name}.json`), historyToJson(history) + '\n');
    }
  }

  it('answers processing, then after exactly the delay records a Failed payment and no payment.received', async () => {
    expect(TEST_CARDS.failsLater).to.equal('4000000000000341');
    const { organizationId, debtId, email } = await raise();
    const startedAt = await env.currentTimeMs();
    const started = await payFailingLater(organizationId, debtId);
    expect(started.status).to.equal('processing');
    const handle: WorkflowHandle<typeof testPaymentFailureWorkflow> = env.client.workflow.getHandle(
      workflowIds.testPayment(started.attemptId),
    );

    // Found by an operator through the organisation and the debt.
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.organizationId)).to.equal(organizationId);
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.debtId)).to.equal(debtId);
    const waiting = await handle.query(testPaymentStatusQuery);
    expect(waiting.phase).to.equal('Waiting');
    expect(Date.parse(waiting.failsAt) - startedAt).to.be.within(
      TEST_PAYMENT_FAILURE_DELAY_MS - 5_000,
      TEST_PAYMENT_FAILURE_DELAY_MS + 5_000,
    );
    expect((await findAttempt(testDb(), organizationId, started.attemptId))?.status).to.equal('processing');
    expect(await transactionsOf(debtId)).to.deep.equal([]);

    // The portal's retry of the same form starts nothing new.
    expect(await payFailingLater(organizationId, debtId)).to.deep.equal(started);

    const settlement = await handle.result();
    expect((await env.currentTimeMs()) - startedAt).to.be.at.least(TEST_PAYMENT_FAILURE_DELAY_MS);
    expect(settlement).to.deep.equal({ attemptStatus: 'failed', reported: true, refusedWith: null });
    expect(await transactionsOf(debtId)).to.deep.equal([
      { direction: 'Inbound', status: 'Failed', type: 'Payment', amount: '200.0000' },
    ]);
    expect(await eventTypes(organizationId)).to.deep.equal(['debt.created']);
    const debt = await testDb()('debts').where({ id: debtId }).first();
    expect(debt).to.include({ status: 'PendingAssignment', outstanding_principal: '600.0000' });
    const attempt = await findAttempt(testDb(), organizationId, started.attemptId);
    expect(attempt).to.include({ status: 'failed', reportRefusal: null });
    expect((await payFailingLater(organizationId, debtId)).status).to.equal('processing');

    const history = await handle.fetchHistory();
    const text = JSON.stringify(historyToJson(history));
    expect(text).not.to.include(email);
    expect(text).not.to.include('0341');
    record('failed-after-delay', history);
  });

  it('records the refusal of a debt closed meanwhile on the attempt, and ends instead of retrying', async () => {
    const { organizationId, debtId } = await raise();
    const started = await payFailingLater(organizationId, debtId);
    await triggers.close(organizationId, debtId);
    const handle = env.client.workflow.getHandle(workflowIds.testPayment(started.attemptId));
    expect(await handle.result()).to.deep.equal({
      attemptStatus: 'failed',
      reported: false,
      refusedWith: 'invalid_state',
    });
    const attempt = await findAttempt(testDb(), organizationId, started.attemptId);
    expect(attempt?.status).to.equal('failed');
    expect(attempt?.reportRefusal).to.match(/^invalid_state: /);
    expect(await transactionsOf(debtId)).to.deep.equal([]);
    record('refused-debt-closed', await handle.fetchHistory());
  });

  it('ends quietly when its attempt is gone (the tenant was reset)', async () => {
    const { organizationId, debtId } = await raise();
    const started = await payFailingLater(organizationId, debtId);
    await testDb()('payment_attempts').where({ id: started.attemptId }).delete();
    const handle = env.client.workflow.getHandle(workflowIds.testPayment(started.attemptId));
    expect(await handle.result()).to.deep.equal({ attemptStatus: 'missing', reported: false, refusedWith: null });
    record('attempt-gone', await handle.fetchHistory());
  });
});
