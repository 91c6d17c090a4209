/**
 * A delivery's attempts on a timeline: an ordered list, one item per attempt (its outcome in words and an icon, the
 * wait since the one before, the latency, the receiver's answer), and, while the delivery waits to retry, the next
 * attempt's time. Semantic HTML drawn by the stylesheet (a line with a marker per item): no script, no chart library,
 * read in order by a screen reader.
 */
import type { AttemptView } from '../../../core/webhooks/deliveries';
import type { ConsoleDelivery } from '../../../core/staff/console-deliveries';
import { When } from '../shared/time';
import { deliveryState, failureOf } from './delivery-state';

/** `45 seconds`, `5 minutes`, `2 hours 36 minutes`: the wait between two attempts. */
export function waitBetween(fromIso: string, toIso: string): string {
  const seconds = Math.max(0, Math.round((new Date(toIso).getTime() - new Date(fromIso).getTime()) / 1000));
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return plural(seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

export function AttemptTimeline({ delivery }: { delivery: ConsoleDelivery }) {
  const state = deliveryState(delivery);
  const { attempts } = delivery;
  const last = attempts.at(-1);
  if (attempts.length === 0) return <p>No attempt yet: the first is being sent.</p>;
  return (
    <ol class="attempt-timeline">
      {attempts.map((a, i) => (
        <AttemptItem key={a.number} attempt={a} previous={attempts[i - 1]} />
      ))}
      {state === 'Retrying' && (
        <li class="attempt attempt-next">
          <p class="attempt-head">
            <span class="marker" aria-hidden="true">
              ↻
            </span>
            <strong>Attempt {(last?.number ?? 0) + 1}</strong>: scheduled <When iso={delivery.nextAttemptAt} />
            {last && delivery.nextAttemptAt && (
              <span class="muted"> ({waitBetween(last.startedAt, delivery.nextAttemptAt)} after the last)</span>
            )}
          </p>
        </li>
      )}
      {state === 'Sending' && (
        <li class="attempt attempt-next">
          <p class="attempt-head">
            <span class="marker" aria-hidden="true">
              …
            </span>
            <strong>Attempt {(last?.number ?? 0) + 1}</strong>: being sent
          </p>
        </li>
      )}
    </ol>
  );
}

function AttemptItem({ attempt: a, previous }: { attempt: AttemptView; previous?: AttemptView }) {
  const outcome = a.succeeded ? `Delivered (HTTP ${a.httpStatus})` : `Failed (${failureOf(a)})`;
  return (
    <li class={`attempt ${a.succeeded ? 'attempt-ok' : 'attempt-failed'}`}>
      <p class="attempt-head">
        <span class="marker" aria-hidden="true">
          {a.succeeded ? '✓' : '✕'}
        </span>
        <strong>Attempt {a.number}</strong>: {outcome} <When iso={a.startedAt} />
      </p>
      <p class="attempt-facts muted">
        {previous
          ? `${waitBetween(previous.startedAt, a.startedAt)} after attempt ${previous.number}`
          : 'First attempt'}{' '}
        · answered in {a.latencyMs} ms
      </p>
      {a.error && a.httpStatus === null && <p class="attempt-error">{a.error}</p>}
      {a.responseBody && (
        <p class="attempt-facts">
          Response (first 1 KiB): <code class="excerpt">{a.responseBody}</code>
        </p>
      )}
    </li>
  );
}
