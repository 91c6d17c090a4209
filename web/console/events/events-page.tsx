/** Events: the organisation's event log, newest first, each with its payload; filtered by type, paged by cursor. */
import { EVENT_TYPES } from '../../../core/events/outbox';
import type { ConsoleEvent, ConsolePage } from '../../../core/staff/console-deliveries';
import { prettyJson } from '../shared/format';
import { When } from '../shared/time';

export function eventsHref(type: string, cursor?: string): string {
  const params = new URLSearchParams();
  if (type) params.set('type', type);
  if (cursor) params.set('cursor', cursor);
  const search = params.toString();
  return search ? `/console/events?${search}` : '/console/events';
}

export function EventsBody(props: { type: string; page: ConsolePage<ConsoleEvent>; paged: boolean }) {
  const { type, page } = props;
  return (
    <>
      <section class="card" aria-labelledby="filter">
        <h2 id="filter">Filter</h2>
        <form method="get" action="/console/events" class="row-filters">
          <div>
            <label for="type">Event type</label>
            <select id="type" name="type">
              <option value="" selected={type === ''}>
                All
              </option>
              {EVENT_TYPES.map((t) => (
                <option key={t} value={t} selected={type === t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Filter</button>
        </form>
      </section>
      <section class="card" aria-labelledby="log">
        <h2 id="log">Events, newest first</h2>
        {page.items.length === 0 ? (
          <p>No event matches.</p>
        ) : (
          <ol class="events">
            {page.items.map((e) => (
              <li key={e.id}>
                <p class="event-head">
                  <strong>{e.type}</strong> <code>{e.id}</code>{' '}
                  <span class="muted">
                    <When iso={e.createdAt} />
                  </span>
                  {e.requestId && <span class="muted"> · request {e.requestId}</span>}
                </p>
                <details>
                  <summary>
                    Payload<span class="visually-hidden"> of {e.id}</span>
                  </summary>
                  <pre class="payload" tabIndex={0}>
                    {prettyJson(e.data)}
                  </pre>
                </details>
              </li>
            ))}
          </ol>
        )}
        <nav aria-label="Pages" class="pager">
          {props.paged && <a href={eventsHref(type)}>First page</a>}
          {page.nextCursor && <a href={eventsHref(type, page.nextCursor)}>Next page</a>}
        </nav>
      </section>
    </>
  );
}
