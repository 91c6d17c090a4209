/**
 * A delivery's state as it is: Delivered, Failed, Retrying (an attempt failed and the next waits for its time), or
 * Sending (its first attempt, or one under way). The API's `Pending` covers both of the last two; a receiver that
 * answers 500 shows as Retrying from its first failure, with a cue that is not colour alone (an icon and the word).
 */
import type { AttemptView, DeliveryView } from '../../../core/webhooks/deliveries';
import { isWaitingToRetry } from '../../../core/webhooks/delivery-retry-now';
import { When } from '../shared/time';

export type DeliveryState = 'Delivered' | 'Failed' | 'Retrying' | 'Sending';

export function deliveryState(d: Pick<DeliveryView, 'status' | 'nextAttemptAt'>): DeliveryState {
  if (d.status === 'Succeeded') return 'Delivered';
  if (d.status === 'Failed') return 'Failed';
  return isWaitingToRetry(d) ? 'Retrying' : 'Sending';
}

const ICONS: Record<DeliveryState, string> = { Delivered: '✓', Failed: '✕', Retrying: '↻', Sending: '…' };

/** The design system's badge for each state (design.css): the icon and the word carry the meaning, the tone repeats it. */
const BADGES: Record<DeliveryState, string> = {
  Delivered: 'badge badge-success',
  Failed: 'badge badge-danger',
  Retrying: 'badge badge-warning',
  Sending: 'badge',
};

export function StateBadge({ delivery }: { delivery: Pick<DeliveryView, 'status' | 'nextAttemptAt'> }) {
  const state = deliveryState(delivery);
  return (
    <span class={BADGES[state]}>
      <span aria-hidden="true">{ICONS[state]} </span>
      {state}
    </span>
  );
}

/** What an attempt's failure was, in a few words: `HTTP 500`, or the error (a timeout, a refused connection). */
export function failureOf(attempt: Pick<AttemptView, 'httpStatus' | 'error'>): string {
  return attempt.httpStatus !== null ? `HTTP ${attempt.httpStatus}` : (attempt.error ?? 'no answer');
}

/**
 * The sentence under a Retrying delivery's state: `attempt 1 failed (HTTP 500), next in 59 minutes`. The last attempt
 * is known on a delivery's own page; the list says the attempt's number only.
 */
export function RetryingSummary(props: { delivery: DeliveryView; lastAttempt?: AttemptView }) {
  const d = props.delivery;
  if (deliveryState(d) !== 'Retrying') return null;
  return (
    <span class="state-detail">
      attempt {d.attemptCount} failed{props.lastAttempt && ` (${failureOf(props.lastAttempt)})`}, next{' '}
      <When iso={d.nextAttemptAt} />
    </span>
  );
}
