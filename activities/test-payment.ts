/**
 * The activity of the test-mode processor's later failure (workflows/test-payment-failure.ts): settle one attempt as
 * failed, through `settlePaymentAttempt` and so the debt's workflow. Idempotent: a retried activity finds the attempt
 * settled and reports nothing again. A refusal by the debt's workflow (the debt closed or settled meanwhile) is
 * recorded on the attempt and answered, never thrown, so the workflow ends; the workflow engine not answering throws,
 * and Temporal retries. Inputs and results are ids and statuses only.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from '../core/platform/logger';
import type { Db } from '../core/platform/db';
import type { Mode } from '../core/platform/mode';
import { createDebtTriggers, type DebtTriggers } from '../core/lifecycle/triggers';
import { findAttempt, settlePaymentAttempt, type AttemptStatus } from '../core/payments/attempts';
import { activityLogger, silentLogger } from './activity-log';

export interface TestPaymentFailureInput {
  organizationId: string;
  debtId: string;
  attemptId: string;
}

export interface TestPaymentSettlement {
  /** `missing`: no such attempt (its tenant was reset or deleted); otherwise the attempt's status afterwards. */
  attemptStatus: AttemptStatus | 'missing';
  /** True when this run reported the failure to the debt's workflow and it was recorded. */
  reported: boolean;
  /** The lifecycle's error code when the debt's workflow refused the report, e.g. `invalid_state`. */
  refusedWith: string | null;
}

export interface TestPaymentActivityDeps {
  db: Db;
  /** The debt's triggers; built from `client` and `mode` when absent. */
  triggers?: DebtTriggers;
  client?: Client;
  mode?: Mode;
  /** The lifecycle task queue the debts' workflows run on (tests use their own). */
  taskQueue?: string;
  logger?: Logger;
}

export function createTestPaymentActivities(deps: TestPaymentActivityDeps) {
  const triggers = deps.triggers ?? triggersOf(deps);
  return {
    async failTestPayment(input: TestPaymentFailureInput): Promise<TestPaymentSettlement> {
      const log = deps.logger ? activityLogger(deps.logger, { debtId: input.debtId }) : silentLogger;
      const attempt = await findAttempt(deps.db, input.organizationId, input.attemptId);
      if (!attempt || attempt.debtId !== input.debtId || attempt.processor !== 'test') {
        log.warn({ attemptId: input.attemptId }, 'test payment to fail later was not found; nothing reported');
        return { attemptStatus: 'missing', reported: false, refusedWith: null };
      }
      const wasProcessing = attempt.status === 'processing';
      const settled = await settlePaymentAttempt(
        { db: deps.db, triggers },
        attempt,
        { status: 'failed' },
        {
          recordRefusal: true,
        },
      );
      const refusedWith = settled.reportRefusal?.split(':')[0] ?? null;
      if (refusedWith) {
        log.warn(
          { attemptId: attempt.id, debtId: attempt.debtId, refusedWith },
          'the debt refused the test payment’s later failure; recorded on the attempt',
        );
      }
      return {
        attemptStatus: settled.status,
        reported: wasProcessing && settled.status === 'failed' && !refusedWith,
        refusedWith,
      };
    },
  };
}

function triggersOf(deps: TestPaymentActivityDeps): DebtTriggers {
  if (!deps.client || !deps.mode) throw new Error('test payment activities need triggers, or a client and a mode');
  return createDebtTriggers({ db: deps.db, client: deps.client, mode: deps.mode, taskQueue: deps.taskQueue });
}

export type TestPaymentActivities = ReturnType<typeof createTestPaymentActivities>;
