/**
 * The test-mode processor's later, asynchronous failure: `test-payment-<attemptId>` on the
 * `lifecycle` task queue, started when a debtor pays with the card that "fails later" (4000000000000341). It waits
 * TEST_PAYMENT_FAILURE_DELAY_MS, then one activity settles the attempt as failed, which reports it to the debt's
 * workflow: a Failed Payment transaction and no `payment.received`. A timer in Temporal survives any process's crash.
 * Its input and history hold ids only (the attempt, its debt and organisation), never the card or the debtor.
 * Found by an operator through its search attributes `OrganizationId` and `DebtId`, set when it is started.
 */
import { defineQuery, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { TestPaymentActivities, TestPaymentFailureInput, TestPaymentSettlement } from '../activities/test-payment';
import { QUERIES } from '../core/temporal/names';

/**
 * Five minutes: long enough that the portal shows the payment as processing and the client sees it pending, short
 * enough that a sandbox user watches the failure arrive (docs/payments.md).
 */
export const TEST_PAYMENT_FAILURE_DELAY_MS = 5 * 60_000;

export interface TestPaymentFailureStatus {
  attemptId: string;
  phase: 'Waiting' | 'Settling' | 'Completed';
  /** When the failure is (or was) due, ISO 8601. */
  failsAt: string;
  /** The activity's answer once Completed. */
  settlement: TestPaymentSettlement | null;
}

export const testPaymentStatusQuery = defineQuery<TestPaymentFailureStatus>(QUERIES.status);

const { failTestPayment } = proxyActivities<TestPaymentActivities>({
  startToCloseTimeout: '1 minute',
  // The database or the debt's workflow not answering is waited out; a refusal is recorded by the activity, not thrown.
  retry: { initialInterval: '1 second', maximumInterval: '5 minutes' },
});

export async function testPaymentFailureWorkflow(input: TestPaymentFailureInput): Promise<TestPaymentSettlement> {
  const status: TestPaymentFailureStatus = {
    attemptId: input.attemptId,
    phase: 'Waiting',
    failsAt: new Date(Date.now() + TEST_PAYMENT_FAILURE_DELAY_MS).toISOString(),
    settlement: null,
  };
  setHandler(testPaymentStatusQuery, () => status);
  await sleep(TEST_PAYMENT_FAILURE_DELAY_MS);
  status.phase = 'Settling';
  const settlement = await failTestPayment(input);
  status.phase = 'Completed';
  status.settlement = settlement;
  return settlement;
}
