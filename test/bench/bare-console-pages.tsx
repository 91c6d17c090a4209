/**
 * The console pages' HTML as the bare ceilings render it (bare-console.ts): the same markup as ours (web/layout.tsx,
 * web/console/deliveries/*), written again from preact alone — plain components, rendered by preact-render-to-string
 * in one pass, nothing kept between requests. harness.test.ts asserts that these pages and ours are the same text for
 * the same rows, so the ceiling renders what the page must render, no more and no less.
 */
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** Copies of ours (core/events/outbox.ts, web/console/deliveries/deliveries-pages.tsx, core/webhooks/deliveries.ts). */
export const BARE_EVENT_TYPES = [
  'debt.created',
  'debt.updated',
  'debt.accepted',
  'debt.disputed',
  'payment.received',
  'payment.refunded',
  'plan.activated',
  'plan.defaulted',
  'placement.completed',
  'placement.failed',
  'test.ping',
];
export const BARE_STATUS_FILTERS = ['Pending', 'Delivered', 'Failed'];
export const BARE_RETRY_FAILED_CAP = 1_000;

export interface BareUser {
  email: string;
  role: string;
  csrfToken: string;
  organizationName: string;
}

export interface BareDelivery {
  id: string;
  eventId: string;
  eventType: string;
  url: string;
  status: string;
  attemptCount: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface BareAttempt {
  number: number;
  startedAt: string;
  succeeded: boolean;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

export interface BareDeliveryDetail extends BareDelivery {
  attempts: BareAttempt[];
  event: { id: string; type: string; createdAt: string; data: unknown } | null;
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];
const phrase = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

function relativeTime(iso: string): string {
  const diff = new Date(iso).getTime() - Date.now();
  const size = Math.abs(diff);
  if (size < 1_000) return 'just now';
  const [unit, ms] = UNITS.find(([, unitMs]) => size >= unitMs) ?? UNITS[UNITS.length - 1]!;
  return phrase.format(Math.trunc(diff / ms), unit);
}

function When({ iso }: { iso: string | null }) {
  if (!iso) return <>–</>;
  const exact = iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
  return (
    <time datetime={iso} title={exact}>
      {relativeTime(iso)}
      <span class="visually-hidden"> ({exact})</span>
    </time>
  );
}

const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

const NAV: [string, string][] = [
  ['/console', 'Overview'],
  ['/console/keys', 'API keys'],
  ['/console/debts', 'Debts'],
  ['/console/debtors', 'Debtors'],
  ['/console/placements', 'Placements'],
  ['/console/branding', 'Branding'],
  ['/console/portal-settings', 'Debtor portal'],
  ['/console/team', 'Team'],
  ['/console/webhooks', 'Webhooks'],
  ['/console/deliveries', 'Deliveries'],
  ['/console/events', 'Events'],
];

/** The production host's layout for a signed-in user (an owner or admin also sees the audit log). */
function Layout(props: { title: string; stylesheetHref: string; user: BareUser; children: ComponentChildren }) {
  const { user } = props;
  const mode = 'production';
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · ${user.organizationName} (${mode}) · Client console`}</title>
        <link rel="stylesheet" href={props.stylesheetHref} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">
            <span class="org">{user.organizationName}</span> <span class={`mode mode-${mode}`}>{mode}</span>{' '}
            <span class="product">Client console</span>
          </span>
          <nav aria-label="Console">
            <ul>
              {NAV.map(([href, text]) => (
                <li>
                  <a href={href}>{text}</a>
                </li>
              ))}
              {(user.role === 'owner' || user.role === 'admin') && (
                <li>
                  <a href="/console/audit">Audit log</a>
                </li>
              )}
            </ul>
          </nav>
          <form method="get" action="/console/search" role="search" class="header-search">
            <label for="console-search" class="visually-hidden">
              Find a debt, debtor, event, delivery or request
            </label>
            <input id="console-search" type="search" name="q" placeholder="Find an id, reference or email" />
            <button type="submit">Find</button>
          </form>
          <div class="account">
            <span class="who" title={`${user.email} (${user.role})`}>
              <span class="email">{user.email}</span> <span class="role">({user.role})</span>
            </span>
            <form method="post" action="/console/sign-out">
              <Csrf token={user.csrfToken} />
              <button type="submit">Sign out</button>
            </form>
            <form method="post" action="/console/sign-out-everywhere">
              <Csrf token={user.csrfToken} />
              <button type="submit">Sign out everywhere</button>
            </form>
          </div>
        </header>
        <main id="main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

const STATE_ICONS: Record<string, string> = { Delivered: '✓', Failed: '✕', Retrying: '↻', Sending: '…' };
const STATE_BADGES: Record<string, string> = {
  Delivered: 'badge badge-success',
  Failed: 'badge badge-danger',
  Retrying: 'badge badge-warning',
  Sending: 'badge',
};

function stateOf(d: BareDelivery): string {
  if (d.status === 'Succeeded') return 'Delivered';
  if (d.status === 'Failed') return 'Failed';
  return d.status === 'Pending' && d.nextAttemptAt !== null ? 'Retrying' : 'Sending';
}

/** The state's badge and, when retrying, its sentence (`spaced` apart on a delivery's page). */
function State(props: { delivery: BareDelivery; lastAttempt?: BareAttempt; spaced?: boolean }) {
  const { delivery, lastAttempt } = props;
  const state = stateOf(delivery);
  return (
    <>
      <span class={STATE_BADGES[state]}>
        <span aria-hidden="true">{STATE_ICONS[state]} </span>
        {state}
      </span>
      {props.spaced && ' '}
      {state === 'Retrying' && (
        <span class="state-detail">
          attempt {delivery.attemptCount} failed{lastAttempt && ` (${failureOf(lastAttempt)})`}, next{' '}
          <When iso={delivery.nextAttemptAt} />
        </span>
      )}
    </>
  );
}

const failureOf = (a: BareAttempt) => (a.httpStatus !== null ? `HTTP ${a.httpStatus}` : (a.error ?? 'no answer'));

/** The unfiltered first page (the bench's), with the next page's link; an admin sees "retry all failed since". */
function DeliveriesBody(props: { items: BareDelivery[]; nextCursor: string | null; csrfToken: string }) {
  const since = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
  return (
    <>
      <section class="card" aria-labelledby="filter">
        <h2 id="filter">Filter</h2>
        <form method="get" action="/console/deliveries" class="row-filters">
          <div>
            <label for="status">Status</label>
            <select id="status" name="status">
              <option value="" selected>
                All
              </option>
              {BARE_STATUS_FILTERS.map((s) => (
                <option value={s}>{s}</option>
              ))}
            </select>
          </div>
          <div>
            <label for="event-type">Event type</label>
            <select id="event-type" name="eventType">
              <option value="" selected>
                All
              </option>
              {BARE_EVENT_TYPES.map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
          </div>
          <div>
            <label for="from">Created from</label>
            <input id="from" name="from" type="date" value="" />
          </div>
          <div>
            <label for="to">Created to (inclusive)</label>
            <input id="to" name="to" type="date" value="" />
          </div>
          <button type="submit">Filter</button>
        </form>
      </section>
      <section class="card" aria-labelledby="list">
        <h2 id="list">Deliveries, newest first</h2>
        {props.items.length === 0 ? (
          <p>No delivery matches.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Deliveries table">
            <table class="collapse">
              <thead>
                <tr>
                  {['Delivery', 'Event type', 'Status', 'Attempts', 'Created', 'Last attempt', 'Next attempt'].map(
                    (heading) => (
                      <th scope="col">{heading}</th>
                    ),
                  )}
                </tr>
              </thead>
              <tbody>
                {props.items.map((d) => (
                  <tr>
                    <td data-label="Delivery">
                      <a href={`/console/deliveries/${d.id}`}>
                        <code>{d.id}</code>
                        <span class="visually-hidden"> {d.eventType} delivery</span>
                      </a>
                    </td>
                    <td data-label="Event type">{d.eventType}</td>
                    <td data-label="Status">
                      <span>
                        <State delivery={d} />
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
          </div>
        )}
        <nav aria-label="Pages" class="pager">
          {props.nextCursor && <a href={`/console/deliveries?cursor=${props.nextCursor}`}>Next page</a>}
        </nav>
      </section>
      <section class="card" aria-labelledby="retry-all">
        <h2 id="retry-all">Retry all failed deliveries</h2>
        <form method="post" action="/console/deliveries/retry-failed">
          <Csrf token={props.csrfToken} />
          <label for="since">Failed since (UTC)</label>
          <input id="since" name="since" type="date" required value={since} aria-describedby="since-help" />
          <p id="since-help" class="muted">
            Every delivery of your organisation that reached Failed on or after this date is delivered again with the
            whole retry schedule, oldest failure first, at most {BARE_RETRY_FAILED_CAP.toLocaleString('en')} per
            request.
          </p>
          <button type="submit">Retry all failed since this date</button>
        </form>
      </section>
    </>
  );
}

function waitBetween(fromIso: string, toIso: string): string {
  const seconds = Math.max(0, Math.round((new Date(toIso).getTime() - new Date(fromIso).getTime()) / 1000));
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return plural(seconds, 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, 'hour') : `${plural(hours, 'hour')} ${plural(rest, 'minute')}`;
}

function Attempts({ delivery }: { delivery: BareDeliveryDetail }) {
  const { attempts } = delivery;
  const state = stateOf(delivery);
  const last = attempts.at(-1);
  if (attempts.length === 0) return <p>No attempt yet: the first is being sent.</p>;
  return (
    <ol class="attempt-timeline">
      {attempts.map((a, i) => {
        const previous = attempts[i - 1];
        return (
          <li class={`attempt ${a.succeeded ? 'attempt-ok' : 'attempt-failed'}`}>
            <p class="attempt-head">
              <span class="marker" aria-hidden="true">
                {a.succeeded ? '✓' : '✕'}
              </span>
              <strong>Attempt {a.number}</strong>:{' '}
              {a.succeeded ? `Delivered (HTTP ${a.httpStatus})` : `Failed (${failureOf(a)})`} <When iso={a.startedAt} />
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
      })}
      {(state === 'Retrying' || state === 'Sending') && (
        <li class="attempt attempt-next">
          <p class="attempt-head">
            <span class="marker" aria-hidden="true">
              {state === 'Retrying' ? '↻' : '…'}
            </span>
            <strong>Attempt {(last?.number ?? 0) + 1}</strong>:{' '}
            {state === 'Retrying' ? (
              <>
                scheduled <When iso={delivery.nextAttemptAt} />
                {last && delivery.nextAttemptAt && (
                  <span class="muted"> ({waitBetween(last.startedAt, delivery.nextAttemptAt)} after the last)</span>
                )}
              </>
            ) : (
              'being sent'
            )}
          </p>
        </li>
      )}
    </ol>
  );
}

/** A delivery's page for an admin of the production host (whose API offers Retry now). */
function DeliveryBody({ d, csrfToken }: { d: BareDeliveryDetail; csrfToken: string }) {
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
            <State delivery={d} lastAttempt={d.attempts.at(-1)} spaced />
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
        {d.status === 'Failed' && (
          <form method="post" action={`/console/deliveries/${d.id}/retry`}>
            <Csrf token={csrfToken} />
            <p>Every attempt failed. Retry to deliver the event again with the whole retry schedule.</p>
            <button type="submit">Retry</button>
          </form>
        )}
        {stateOf(d) === 'Retrying' && (
          <form method="post" action={`/console/deliveries/${d.id}/retry-now`}>
            <Csrf token={csrfToken} />
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
        <Attempts delivery={d} />
      </section>
      <section class="card" aria-labelledby="payload">
        <h2 id="payload">Event payload</h2>
        {d.event ? (
          <pre class="payload" tabIndex={0}>
            {JSON.stringify(
              { id: d.event.id, type: d.event.type, createdAt: d.event.createdAt, data: d.event.data },
              null,
              2,
            )}
          </pre>
        ) : (
          <p>The event is no longer kept.</p>
        )}
      </section>
    </>
  );
}

/** A signed-in page of the production host: `<!doctype html>` and the layout around `body`, in one pass. */
export const bareConsolePage = (title: string, stylesheetHref: string, user: BareUser, body: VNode) =>
  `<!doctype html>${renderToString(
    <Layout title={title} stylesheetHref={stylesheetHref} user={user}>
      {body}
    </Layout>,
  )}`;

export function bareDeliveriesPage(
  stylesheetHref: string,
  user: BareUser,
  items: BareDelivery[],
  nextCursor: string | null,
): string {
  return bareConsolePage(
    'Deliveries',
    stylesheetHref,
    user,
    <DeliveriesBody items={items} nextCursor={nextCursor} csrfToken={user.csrfToken} />,
  );
}

export function bareDeliveryPage(stylesheetHref: string, user: BareUser, delivery: BareDeliveryDetail): string {
  return bareConsolePage('Delivery', stylesheetHref, user, <DeliveryBody d={delivery} csrfToken={user.csrfToken} />);
}
