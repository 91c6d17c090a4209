/**
 * The test-mode processor's `scheduleLaterFailure`: starts `test-payment-<attemptId>` (workflows/test-payment-failure.ts)
 * on the lifecycle task queue, with the organisation and debt as search attributes so an operator finds it. Starting
 * it again is a no-op (the workflow id is the attempt's), so the processor may call this on every `start()` of a
 * processing attempt: a crash between recording the attempt and starting its timer is mended by the portal's retry.
 */
import type { Client } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_KEYS, TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../temporal/names';
import { startOnce } from '../temporal/start-once';
import type { PaymentAttempt } from './attempts';

export function createLaterFailureScheduler(deps: { client: Client; taskQueue?: string }) {
  return async (attempt: PaymentAttempt): Promise<void> => {
    await startOnce(deps.client, WORKFLOW_TYPES.testPaymentFailure, {
      taskQueue: deps.taskQueue ?? TASK_QUEUES.lifecycle,
      workflowId: workflowIds.testPayment(attempt.id),
      args: [{ organizationId: attempt.organizationId, debtId: attempt.debtId, attemptId: attempt.id }],
      typedSearchAttributes: [
        { key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: attempt.organizationId },
        { key: SEARCH_ATTRIBUTE_KEYS.debtId, value: attempt.debtId },
      ],
    });
  };
}
