/**
 * The test-mode processor: in the sandbox and in development no money moves, and the card number
 * decides the outcome, as Stripe's test cards do. Any other number is declined as an unknown test card, so a real
 * card number typed by mistake is never "charged" here.
 */
import { newId } from '../platform/ids';
import type { Db } from '../platform/db';
import type { DebtTriggers } from '../lifecycle/triggers';
import { recordAttempt, settlePaymentAttempt, type PaymentAttempt } from './attempts';
import type { PaymentProcessor, PaymentStart } from './processor';
import type { Refunder } from './refunds';

/** No money moved, so a refund is only recorded: its reference is the attempt's, so asking twice is one refund. */
export const testModeRefunder: Refunder = {
  kind: 'test',
  refund: (attempt) => Promise.resolve({ reference: `test_refund_${attempt.id.replace(/-/g, '')}` }),
};

export const TEST_CARDS = {
  /** Succeeds at once. */
  succeeds: '4242424242424242',
  /** Declined by the issuer: nothing changes. */
  declined: '4000000000000002',
  /** Accepted, then fails later (asynchronously): a Failed transaction, no `payment.received`. */
  failsLater: '4000000000000341',
} as const;

export interface TestModeProcessorDeps {
  db: Db;
  triggers: DebtTriggers;
  /**
   * Arrange for a `failsLater` attempt to be settled as failed later, durably (a crash before then must not lose
   * it): `createLaterFailureScheduler` (./later-failure) starts a Temporal timer. Called again for the same attempt
   * when the portal retries, so it must be idempotent. Absent, the attempt stays `processing`.
   */
  scheduleLaterFailure?: (attempt: PaymentAttempt) => Promise<void>;
}

function digits(cardNumber: string): string {
  return cardNumber.replace(/[\s-]/g, '');
}

export function createTestModeProcessor(deps: TestModeProcessorDeps): PaymentProcessor {
  // A success the debt refuses (a second tab's payment after the first settled it) is recorded and refunded, as
  // Stripe's would be, rather than left open.
  const settleDeps = { ...deps, refunder: testModeRefunder };
  return {
    kind: 'test',
    // No money moves: any amount a debt can hold is taken.
    refusal: () => null,
    async start(request): Promise<PaymentStart> {
      const { attempt, created } = await recordAttempt(deps.db, {
        organizationId: request.organizationId,
        debtId: request.debtId,
        processor: 'test',
        processorReference: `test_pay_${newId().replace(/-/g, '')}`,
        idempotencyKey: request.idempotencyKey,
        amount: request.amount,
        currency: request.currency,
      });
      if (attempt.idempotencyKey !== request.idempotencyKey) {
        return { status: 'already_open', attemptId: attempt.id, amount: attempt.amount };
      }
      const card = digits(request.testCardNumber ?? '');
      let settled = attempt;
      if (created || attempt.status === 'processing') {
        if (card === TEST_CARDS.succeeds) {
          settled = await settlePaymentAttempt(settleDeps, attempt, { status: 'succeeded' }, { recordRefusal: true });
        } else if (card === TEST_CARDS.failsLater) {
          // On every start of a processing attempt, not only the first: starting the timer is idempotent, and a
          // crash after the attempt was recorded but before its timer started is mended by the portal's retry.
          await deps.scheduleLaterFailure?.(attempt);
        } else {
          const reason = card === TEST_CARDS.declined ? 'card_declined' : 'unknown_test_card';
          settled = await settlePaymentAttempt(deps, attempt, { status: 'declined', reason });
        }
      }
      return asStart(settled);
    },
    // Only a card that fails later leaves an attempt open: its timer is running (started again: idempotent).
    async resume(attempt) {
      if (attempt.status === 'processing') await deps.scheduleLaterFailure?.(attempt);
      return asStart(attempt);
    },
    // A test card's open attempt is already charged (its failure is on a timer): there is nothing to abandon.
    abandon: async () => false,
  };
}

function asStart(attempt: PaymentAttempt): PaymentStart {
  switch (attempt.status) {
    case 'succeeded':
      return attempt.reportRefusal
        ? { status: 'refunded', attemptId: attempt.id, reason: attempt.reportRefusal }
        : { status: 'succeeded', attemptId: attempt.id };
    case 'declined':
      return { status: 'declined', attemptId: attempt.id, reason: attempt.declineReason ?? 'card_declined' };
    case 'failed':
    case 'processing':
      return { status: 'processing', attemptId: attempt.id };
  }
}
