/**
 * Deliveries: the filter form (a GET, so every filter is a URL query parameter), a page of deliveries with the link to
 * the next one, "retry all failed since", and a delivery's own page with its attempts, its event's payload and, on a
 * `Failed` delivery, the Retry button.
 */
import { EVENT_TYPES } from '../../../core/events/outbox';
import type { ConsoleDelivery, ConsolePage } from '../../../core/staff/console-deliveries';
import type { DeliveryView } from '../../../core/webhooks/deliveries';
import { CsrfField } from '../../layout';
import { prettyJson } from '../shared/format';
import { AttemptTimeline } from './attempt-timeline';
import { deliveryState, RetryingSummary, StateBadge } from './delivery-state';
import { When } from '../shared/time';

export const STATUS_FILTERS = ['Pending', 'Delivered', 'Failed'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

/** The list's query parameters as the page reads and writes them ('' when not set). */
export interface DeliveryQuery {
  status: StatusFilter | '';
  eventType: string;
  from: string;
  to: string;
}

export function deliveriesHref(query: DeliveryQuery, cursor?: string): string {
  const params = new URLSearchParams();
  for (const name of ['status', 'eventType', 'from', 'to'] as const) if (query[name]) params.set(name, query[name]);
  if (cursor) params.set('cursor', cursor);
  const search = params.toString();
  return search ? `/console/deliveries?${search}` : '/console/deliveries';
}

export function DeliveriesBody(props: {
  query: DeliveryQuery;
  page: ConsolePage<DeliveryView>;
  paged: boolean;
  canManage: boolean;
  csrfToken: string;
  defaultSince: string;
  cap: number;
}) {
  const { query, page } = props;
  return (
    <>
      <FilterForm query={query} />
      <section class="card" aria-labelledby="list">
        <h2 id="list">Deliveries, newest first</h2>
        {page.items.length === 0 ? (
          <p>No delivery matches.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Deliveries table">
            <DeliveryTable deliveries={page.items} />
          </div>
        )}
        <nav aria-label="Pages" class="pager">
          {props.paged && <a href={deliveriesHref(query)}>First page</a>}
          {page.nextCursor && <a href={deliveriesHref(query, page.nextCursor)}>Next page</a>}
        </nav>
      </section>
      {props.canManage && <RetryAllForm csrfToken={props.csrfToken} since={props.defaultSince} cap={props.cap} />}
    </>
  );
}

function FilterForm({ query }: { query: DeliveryQuery }) {
  return (
    <section class="card" aria-labelledby="filter">
      <h2 id="filter">Filter</h2>
      <form method="get" action="/console/deliveries" class="row-filters">
        <div>
          <label for="status">Status</label>
          <select id="status" name="status">
            <option value="" selected={query.status === ''}>
              All
            </option>
            {STATUS_FILTERS.map((s) => (
              <option key={s} value={s} selected={query.status === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="event-type">Event type</label>
          <select id="event-type" name="eventType">
            <option value="" selected={query.eventType === ''}>
              All
            </option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t} selected={query.eventType === t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="from">Created from</label>
          <input id="from" name="from" type="date" value={query.from} />
        </div>
        <div>
          <label for="to">Created to (inclusive)</label>
          <input id="to" name="to" type="date" value={query.to} />
        </div>
        <button type="submit">Filter</button>
      </form>
    </section>
  );
}

function DeliveryTable({ deliveries }: { deliveries: DeliveryView[] }) {
  return (
    <table class="collapse">
      <thead>
        <tr>
          <th scope="col">Delivery</th>
          <th scope="col">Event type</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Created</th>
          <th scope="col">Last attempt</th>
          <th scope="col">Next attempt</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.id}>
            <td data-label="Delivery">
              <a href={`/console/deliveries/${d.id}`}>
                <code>{d.id}</code>
                <span class="visually-hidden"> {d.eventType} delivery</span>
              </a>
            </td>
            <td data-label="Event type">{d.eventType}</td>
            <td data-label="Status">
              <span>
                <StateBadge delivery={d} />
                <RetryingSummary delivery={d} />
              </span>
            </td>
            <td data-label="Attempts">{d.attemptCount}</td>
            <td data-label="Created">
              <When iso={d.createdAt} />
            </td>
            <td data-label="Last attempt">
              <When iso={d.lastAttemptAt} />
            </td>
            <td data-label="Next attempt">
              <When iso={d.nextAttemptAt} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RetryAllForm({ csrfToken, since, cap }: { csrfToken: string; since: string; cap: number }) {
  return (
    <section class="card" aria-labelledby="retry-all">
      <h2 id="retry-all">Retry all failed deliveries</h2>
      <form method="post" action="/console/deliveries/retry-failed">
        <CsrfField token={csrfToken} />
        <label for="since">Failed since (UTC)</label>
        <input id="since" name="since" type="date" required value={since} aria-describedby="since-help" />
        <p id="since-help" class="muted">
          Every delivery of your organisation that reached Failed on or after this date is delivered again with the
          whole retry schedule, oldest failure first, at most {cap.toLocaleString('en')} per request.
        </p>
        <button type="submit">Retry all failed since this date</button>
      </form>
    </section>
  );
}

export function RetriedAllBody({ count, since, cap }: { count: number; since: string; cap: number }) {
  return (
    <section class="card" role="status">
      <p>
        <strong>
          {count.toLocaleString('en')} failed {count === 1 ? 'delivery' : 'deliveries'} queued for retry
        </strong>{' '}
        (failed since {since}).
      </p>
      {count >= cap && (
        <p>
          That is the most one request queues ({cap.toLocaleString('en')}); more may be left. Send the form again to
          queue the next ones.
        </p>
      )}
      <p>
        <a href={deliveriesHref({ status: 'Pending', eventType: '', from: '', to: '' })}>See the pending deliveries</a>
      </p>
    </section>
  );
}

export function DeliveryBody(props: {
  delivery: ConsoleDelivery;
  canManage: boolean;
  canRetryNow: boolean;
  csrfToken: string;
}) {
  const d = props.delivery;
  const lastAttempt = d.attempts.at(-1);
  const state = deliveryState(d);
  return (
    <>
      <section class="card" aria-labelledby="summary">
        <h2 id="summary">Summary</h2>
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{d.id}</code>
          </dd>
          <dt>Status</dt>
          <dd>
            <StateBadge delivery={d} /> <RetryingSummary delivery={d} lastAttempt={lastAttempt} />
          </dd>
          <dt>Event</dt>
          <dd>
            {d.eventType} <code>{d.eventId}</code>
          </dd>
          <dt>Receiver</dt>
          <dd>
            <code>{d.url}</code>
          </dd>
          <dt>Created</dt>
          <dd>
            <When iso={d.createdAt} />
          </dd>
          <dt>Attempts</dt>
          <dd>{d.attemptCount}</dd>
        </dl>
        {state === 'Failed' && props.canManage && (
          <form method="post" action={`/console/deliveries/${d.id}/retry`}>
            <CsrfField token={props.csrfToken} />
            <p>Every attempt failed. Retry to deliver the event again with the whole retry schedule.</p>
            <button type="submit">Retry</button>
          </form>
        )}
        {state === 'Retrying' && props.canManage && props.canRetryNow && (
          <form method="post" action={`/console/deliveries/${d.id}/retry-now`}>
            <CsrfField token={props.csrfToken} />
            <p>
              Send attempt {d.attemptCount + 1} now instead of waiting for it. If it fails, the remaining retries keep
              their schedule.
            </p>
            <button type="submit">Retry now</button>
          </form>
        )}
        <p>
          <a href="/console/deliveries">Back to Deliveries</a>
        </p>
      </section>
      <section class="card" aria-labelledby="attempts">
        <h2 id="attempts">Attempts</h2>
        <AttemptTimeline delivery={d} />
      </section>
      <section class="card" aria-labelledby="payload">
        <h2 id="payload">Event payload</h2>
        {d.event ? (
          <pre class="payload" tabIndex={0}>
            {prettyJson({ id: d.event.id, type: d.event.type, createdAt: d.event.createdAt, data: d.event.data })}
          </pre>
        ) : (
          <p>The event is no longer kept.</p>
        )}
      </section>
    </>
  );
}
