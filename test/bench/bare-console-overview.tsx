/**
 * The console Overview's HTML as its bare ceiling renders it (bare-console.ts): the statement's row turned into the
 * page's figures (the 30 days, 12 weeks and eight statuses with their zeros, the week's failures counted from the
 * days) and the page — banner, four figures, three SVG charts with their tables, the week's failures — rendered by
 * preact-render-to-string in one pass inside the layout of bare-console-pages.tsx. The same markup as ours
 * (web/console/account/overview-page.tsx, web/console/overview/*, web/charts/*, core/rollups/overview-rollups.ts),
 * written again from the libraries alone (preact, decimal.js for the exact totals); harness.test.ts holds the two
 * equal, byte for byte, for the same row.
 */
import Decimal from 'decimal.js';
import type { ComponentChildren } from 'preact';
import { bareConsolePage, type BareUser } from './bare-console-pages';

/** Copies of ours (core/debts/debt-status.ts, core/debts/currencies.ts), asserted equal by harness.test.ts. */
export const BARE_DEBT_STATUSES = [
  'PendingAssignment',
  'Accepted',
  'Active',
  'InArrears',
  'Disputed',
  'Settled',
  'WrittenOff',
  'Closed',
];
const TERMINAL = ['Settled', 'WrittenOff', 'Closed'];
const MINOR_UNITS_0 = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF'.split(' ');
const MINOR_UNITS_3 = 'BHD IQD JOD KWD LYD OMR TND'.split(' ');
/** Every other currency a debt may be raised in has two minor-unit digits. */
export const bareMinorUnits = (currency: string): number =>
  MINOR_UNITS_0.includes(currency) ? 0 : MINOR_UNITS_3.includes(currency) ? 3 : 2;

const DAYS = 30;
const WEEKS = 12;
const FAILED_DAYS = 7;
const DAY_MS = 86_400_000;

/** The statement's one row, as `pg` parses it. */
export interface BareOverviewRow {
  debts: [string, number][];
  days: [string, string, number][];
  retrying: string;
  weeks: [string, string, string, number][];
  failed: [string, string, string, string][];
}

interface Day {
  day: string;
  succeeded: number;
  failed: number;
}
interface Week {
  week: string;
  amount: string;
  payments: number;
}

const utcDay = (date: Date, days = 0) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) + days * DAY_MS)
    .toISOString()
    .slice(0, 10);

// ---- numbers and dates as the charts write them (web/charts/scale.ts, web/money-format.ts)
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');
const count = (n: number) => whole.format(n);
const shortNumber = (n: number) => compact.format(n);
const percent = (ratio: number) => `${(Math.floor(ratio * 1000) / 10).toFixed(1)} %`;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function shortDate(isoDay: string): string {
  const [, month, day] = isoDay.split('-').map(Number) as [number, number, number];
  return `${day} ${MONTHS[month - 1]}`;
}
function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
const Exact = Decimal.clone({ precision: 50, toExpNeg: -50, toExpPos: 50 });
const moneyFormats = new Map<number, Intl.NumberFormat>();
/** `1250.5` AUD as `1,250.50 AUD` (web/money-format.ts): the portal's ceiling writes its amounts so too. */
export function bareMoney(amount: number, currency: string): string {
  const digits = bareMinorUnits(currency);
  let format = moneyFormats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    moneyFormats.set(digits, format);
  }
  return `${format.format(amount)} ${currency}`;
}
function moneyNumber(amount: string, currency: string): number {
  const units = bareMinorUnits(currency);
  const fraction = amount.split('.')[1] ?? '';
  if (fraction.replace(/0+$/, '').length <= units) return Number(amount);
  return Number(new Exact(amount).toDecimalPlaces(units).toFixed());
}
const rateOf = (d: { succeeded: number; failed: number }) =>
  d.succeeded + d.failed === 0 ? null : d.succeeded / (d.succeeded + d.failed);

// ---- the charts (web/charts/*.tsx, web/console/overview/chart-parts.tsx)
const FONT = 12;
const INK = '#1b1f24';
const GRID = '#c9d0d8';
const COLOURS = {
  delivered: '#3d8b4f',
  failed: '#a3161b',
  open: '#0b5cad',
  finished: '#5f6b7a',
  collected: '#0b5cad',
};
const r1 = (n: number) => Math.round(n * 10) / 10;

function Frame(props: {
  id: string;
  title: string;
  description: string;
  width: number;
  height: number;
  children: ComponentChildren;
}) {
  return (
    <svg
      role="img"
      aria-labelledby={`${props.id}-title ${props.id}-desc`}
      viewBox={`0 0 ${props.width} ${props.height}`}
      width="100%"
      font-family="system-ui, sans-serif"
      font-size={FONT}
      fill={INK}
    >
      <title id={`${props.id}-title`}>{props.title}</title>
      <desc id={`${props.id}-desc`}>{props.description}</desc>
      {props.children}
    </svg>
  );
}

const W = 480;
const H = 220;
const LEFT = 44;
const PLOT_W = W - LEFT - 44;
const TOP = 12;
const PLOT_H = H - TOP - 26;

function Columns(props: {
  id: string;
  title: string;
  description: string;
  colours: string[];
  columns: { label: string; values: number[] }[];
  rate?: (number | null)[];
  axisLabel: (n: number) => string;
}) {
  const { columns, rate } = props;
  const max = niceMax(Math.max(2, ...columns.map((c) => c.values.reduce((s, v) => s + v, 0))));
  const slot = PLOT_W / Math.max(1, columns.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => TOP + PLOT_H - (value / max) * PLOT_H;
  const labelled = new Set([0, Math.floor((columns.length - 1) / 2), columns.length - 1]);
  const points = rate
    ? rate.flatMap((r, i) =>
        r === null ? [] : [{ x: r1(LEFT + slot * i + slot / 2), y: r1(TOP + PLOT_H - r * PLOT_H) }],
      )
    : [];
  return (
    <Frame id={props.id} title={props.title} description={props.description} width={W} height={H}>
      {[0, max / 2, max].map((t) => (
        <g>
          <line x1={LEFT} x2={LEFT + PLOT_W} y1={r1(y(t))} y2={r1(y(t))} stroke={GRID} stroke-width="1" />
          <text x={LEFT - 6} y={r1(y(t)) + FONT / 3} text-anchor="end">
            {props.axisLabel(t)}
          </text>
        </g>
      ))}
      {rate &&
        [0, 0.5, 1].map((r) => (
          <text x={LEFT + PLOT_W + 6} y={r1(TOP + PLOT_H - r * PLOT_H) + FONT / 3}>
            {percent(r).replace('.0 ', ' ')}
          </text>
        ))}
      {columns.map((c, i) => {
        let base = 0;
        const x = r1(LEFT + slot * i + (slot - barWidth) / 2);
        return (
          <g>
            {c.values.map((v, s) => {
              if (v <= 0) return null;
              const top = y(base + v);
              const height = y(base) - top;
              base += v;
              return (
                <rect
                  x={x}
                  y={r1(top)}
                  width={r1(barWidth)}
                  height={r1(Math.max(height, 1))}
                  fill={props.colours[s]}
                  stroke="#ffffff"
                  stroke-width="0.5"
                />
              );
            })}
            {labelled.has(i) && (
              <text
                x={r1(LEFT + slot * i + slot / 2)}
                y={H - 8}
                text-anchor={i === 0 ? 'start' : i === columns.length - 1 ? 'end' : 'middle'}
              >
                {c.label}
              </text>
            )}
          </g>
        );
      })}
      {points.length > 1 && (
        <polyline
          points={points.map((p) => `${p.x},${p.y}`).join(' ')}
          fill="none"
          stroke={INK}
          stroke-width="2"
          stroke-dasharray="5 3"
        />
      )}
      {points.map((p) => (
        <circle cx={p.x} cy={p.y} r="2.5" fill={INK} />
      ))}
    </Frame>
  );
}

function Bars(props: { bars: { label: string; value: number; colour: string }[]; description: string }) {
  const { bars } = props;
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const plot = 480 - 150 - 60;
  const height = 8 + 24 * bars.length;
  return (
    <Frame id="debts-chart" title="Debts by status" description={props.description} width={480} height={height}>
      <line x1={150} x2={150} y1={4} y2={height - 4} stroke={GRID} stroke-width="1" />
      {bars.map((b, i) => {
        const top = 4 + 24 * i;
        const width = Math.round((b.value / max) * plot * 10) / 10;
        return (
          <g>
            <text x={142} y={top + 12 + FONT / 3} text-anchor="end">
              {b.label}
            </text>
            {b.value > 0 && <rect x={150} y={top + 4} width={Math.max(width, 1)} height={16} fill={b.colour} />}
            <text x={150 + Math.max(width, 0) + 6} y={top + 12 + FONT / 3}>
              {count(b.value)}
            </text>
          </g>
        );
      })}
    </Frame>
  );
}

function Legend({ entries }: { entries: { name: string; colour: string; line?: boolean; figure?: string }[] }) {
  return (
    <ul class="chart-legend">
      {entries.map((e) => (
        <li>
          <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" focusable="false">
            {e.line ? (
              <line x1="0" x2="14" y1="7" y2="7" stroke={e.colour} stroke-width="2" stroke-dasharray="5 3" />
            ) : (
              <rect width="14" height="14" fill={e.colour} />
            )}
          </svg>
          <span>
            {e.name}
            {e.figure !== undefined && <>: {e.figure}</>}
          </span>
        </li>
      ))}
    </ul>
  );
}

const Scroll = ({ label, children }: { label: string; children: ComponentChildren }) => (
  <div class="chart-scroll" tabindex={0} role="group" aria-label={label}>
    {children}
  </div>
);

/** A table for screen readers, in a box that clips it. */
const Hidden = (props: { caption: string; heads: string[]; children: ComponentChildren }) => (
  <div class="visually-hidden">
    <table>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          {props.heads.map((head) => (
            <th scope="col">{head}</th>
          ))}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  </div>
);

function DeliveriesChart({ days }: { days: Day[] }) {
  let delivered = 0;
  let failed = 0;
  for (const d of days) {
    delivered += d.succeeded;
    failed += d.failed;
  }
  const overall = rateOf({ succeeded: delivered, failed });
  const summary =
    overall === null
      ? 'No delivery finished in the last 30 days.'
      : `${count(delivered)} delivered and ${count(failed)} failed in the last 30 days: ${percent(overall)} succeeded.`;
  return (
    <section class="card" aria-labelledby="deliveries-per-day">
      <h2 id="deliveries-per-day">Webhook deliveries per day</h2>
      <p class="chart-summary">{summary}</p>
      <figure class="chart">
        <Scroll label="Webhook deliveries per day (chart)">
          <Columns
            id="deliveries-chart"
            title="Webhook deliveries per day by outcome, with the success rate"
            description={`Stacked columns, one per UTC day from ${shortDate(days[0]!.day)} to ${shortDate(days[days.length - 1]!.day)}: deliveries that finished that day, delivered below and failed above; a dashed line gives each day's success rate. ${summary} The table that follows gives each day's figures.`}
            colours={[COLOURS.delivered, COLOURS.failed]}
            columns={days.map((d) => ({ label: shortDate(d.day), values: [d.succeeded, d.failed] }))}
            rate={days.map(rateOf)}
            axisLabel={shortNumber}
          />
        </Scroll>
        <Legend
          entries={[
            { name: 'Delivered', colour: COLOURS.delivered, figure: count(delivered) },
            { name: 'Failed', colour: COLOURS.failed, figure: count(failed) },
            { name: 'Success rate (right axis)', colour: INK, line: true },
          ]}
        />
      </figure>
      <Hidden
        caption="Webhook deliveries finished per UTC day, last 30 days"
        heads={['Day', 'Delivered', 'Failed', 'Success rate']}
      >
        {days.map((d) => {
          const rate = rateOf(d);
          return (
            <tr>
              <th scope="row">{d.day}</th>
              <td>{d.succeeded}</td>
              <td>{d.failed}</td>
              <td>{rate === null ? '–' : percent(rate)}</td>
            </tr>
          );
        })}
      </Hidden>
    </section>
  );
}

function DebtsChart({ debts }: { debts: { status: string; count: number }[] }) {
  const ordered = [
    ...debts.filter((d) => !TERMINAL.includes(d.status)),
    ...debts.filter((d) => TERMINAL.includes(d.status)),
  ];
  let openTotal = 0;
  let finishedTotal = 0;
  for (const d of debts) {
    if (TERMINAL.includes(d.status)) finishedTotal += d.count;
    else openTotal += d.count;
  }
  return (
    <section class="card" aria-labelledby="debts-by-status">
      <h2 id="debts-by-status">Debts by status</h2>
      <p class="chart-summary">{`${count(openTotal)} open and ${count(finishedTotal)} finished.`}</p>
      <figure class="chart">
        <Scroll label="Debts by status (chart)">
          <Bars
            description={`One bar per status, open statuses first: ${debts.map((d) => `${d.status} ${d.count}`).join(', ')}.`}
            bars={ordered.map((d) => ({
              label: d.status,
              value: d.count,
              colour: TERMINAL.includes(d.status) ? COLOURS.finished : COLOURS.open,
            }))}
          />
        </Scroll>
        <Legend
          entries={[
            { name: 'Open', colour: COLOURS.open, figure: count(openTotal) },
            { name: 'Finished', colour: COLOURS.finished, figure: count(finishedTotal) },
          ]}
        />
      </figure>
      <Hidden caption="Debts by status" heads={['Status', 'Open or finished', 'Debts']}>
        {ordered.map((d) => (
          <tr>
            <th scope="row">{d.status}</th>
            <td>{TERMINAL.includes(d.status) ? 'Finished' : 'Open'}</td>
            <td>{d.count}</td>
          </tr>
        ))}
      </Hidden>
    </section>
  );
}

function CurrencyChart({ currency, weeks }: { currency: string; weeks: Week[] }) {
  const total = weeks.reduce((sum, w) => sum.plus(w.amount), new Exact(0)).toFixed();
  const payments = weeks.reduce((sum, w) => sum + w.payments, 0);
  const amount = (value: string) => bareMoney(moneyNumber(value, currency), currency);
  const summary = `${amount(total)} in ${count(payments)} ${payments === 1 ? 'payment' : 'payments'} over 12 weeks.`;
  const id = `collected-${currency.toLowerCase()}`;
  return (
    <>
      <h3 id={`${id}-heading`}>{currency}</h3>
      <p class="chart-summary">{summary}</p>
      <figure class="chart">
        <Scroll label={`Payments collected per week in ${currency} (chart)`}>
          <Columns
            id={id}
            title={`Payments collected per week in ${currency}`}
            description={`Columns, one per week starting Monday (UTC) from ${shortDate(weeks[0]!.week)}: the amount collected that week. ${summary} The table that follows gives each week's amount.`}
            colours={[COLOURS.collected]}
            columns={weeks.map((w) => ({ label: shortDate(w.week), values: [moneyNumber(w.amount, currency)] }))}
            axisLabel={shortNumber}
          />
        </Scroll>
        <Legend entries={[{ name: `Collected, ${currency}`, colour: COLOURS.collected, figure: amount(total) }]} />
      </figure>
      <Hidden caption={`Payments collected per week in ${currency}`} heads={['Week starting', 'Collected', 'Payments']}>
        {weeks.map((w) => (
          <tr>
            <th scope="row">{w.week}</th>
            <td>{amount(w.amount)}</td>
            <td>{w.payments}</td>
          </tr>
        ))}
      </Hidden>
    </>
  );
}

const deliveriesPhrase = (n: number) => `${count(n)} webhook ${n === 1 ? 'delivery' : 'deliveries'}`;

function Stat({ id, label, figure, hint }: { id: string; label: string; figure: string; hint: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{label}</h2>
      <span class="stat-figure">{figure}</span>
      <span class="hint">{hint}</span>
    </section>
  );
}

function OverviewBody({ row, now, chartsHref }: { row: BareOverviewRow; now: Date; chartsHref: string }) {
  const firstDay = utcDay(now, -(DAYS - 1));
  const firstWeek = utcDay(now, -(WEEKS - 1) * 7 - ((now.getUTCDay() + 6) % 7));
  const failedSince = `${utcDay(now, -(FAILED_DAYS - 1))}T00:00:00.000Z`;
  const debtCounts = new Map(row.debts.map(([status, n]) => [status, Number(n)]));
  const debts = BARE_DEBT_STATUSES.map((status) => ({ status, count: debtCounts.get(status) ?? 0 }));
  const byDay = new Map<string, Day>();
  const firstDate = new Date(`${firstDay}T00:00:00Z`);
  for (let i = 0; i < DAYS; i++) {
    const day = utcDay(firstDate, i);
    byDay.set(day, { day, succeeded: 0, failed: 0 });
  }
  for (const [day, status, n] of row.days) {
    const entry = byDay.get(day);
    if (entry) entry[status === 'Succeeded' ? 'succeeded' : 'failed'] = Number(n);
  }
  const days = [...byDay.values()];
  const byCurrency = new Map<string, Map<string, Week>>();
  const firstMonday = new Date(`${firstWeek}T00:00:00Z`);
  for (const [week, currency, amount, n] of row.weeks) {
    let weeks = byCurrency.get(currency);
    if (!weeks) {
      weeks = new Map();
      for (let i = 0; i < WEEKS; i++) {
        const monday = utcDay(firstMonday, i * 7);
        weeks.set(monday, { week: monday, amount: '0', payments: 0 });
      }
      byCurrency.set(currency, weeks);
    }
    const entry = weeks.get(week);
    if (entry) Object.assign(entry, { amount, payments: Number(n) });
  }
  const failingNow = Number(row.retrying);
  const failed = days.slice(-FAILED_DAYS).reduce((sum, d) => sum + d.failed, 0);
  const openDebts = debts.reduce((sum, d) => sum + (TERMINAL.includes(d.status) ? 0 : d.count), 0);
  let succeededTotal = 0;
  let failedTotal = 0;
  for (const d of days) {
    succeededTotal += d.succeeded;
    failedTotal += d.failed;
  }
  const rate = rateOf({ succeeded: succeededTotal, failed: failedTotal });
  const when = (iso: string) => iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
  return (
    <>
      <link rel="stylesheet" href={chartsHref} />
      {(failingNow > 0 || failed > 0) && (
        <div class="flash flash-danger" role="alert">
          {failingNow > 0 && (
            <p>
              <strong>{deliveriesPhrase(failingNow)} failing now</strong>: the latest attempt failed and{' '}
              {failingNow === 1 ? 'it is' : 'they are'} waiting to retry.{' '}
              <a href="/console/deliveries?status=Pending">See the pending deliveries</a>
            </p>
          )}
          {failed > 0 && (
            <p>
              <strong>{deliveriesPhrase(failed)} failed in the last 7 days.</strong>{' '}
              <a href="/console/deliveries?status=Failed">See the failed deliveries</a>
            </p>
          )}
        </div>
      )}
      <div class="overview-stats">
        <Stat
          id="failing-now"
          label="Failing now"
          figure={count(failingNow)}
          hint="Deliveries whose latest attempt failed, waiting to retry"
        />
        <Stat id="failed-week" label="Failed, 7 days" figure={count(failed)} hint="Deliveries that gave up" />
        <Stat
          id="success-rate"
          label="Success rate, 30 days"
          figure={rate === null ? '–' : percent(rate)}
          hint="Delivered of the deliveries that finished"
        />
        <Stat id="open-debts" label="Open debts" figure={count(openDebts)} hint="Not settled, written off or closed" />
      </div>
      <DeliveriesChart days={days} />
      <DebtsChart debts={debts} />
      <section class="card" aria-labelledby="collected-per-week">
        <h2 id="collected-per-week">Payments collected per week</h2>
        {byCurrency.size === 0 ? (
          <p>No payment collected in the last 12 weeks.</p>
        ) : (
          [...byCurrency.keys()]
            .sort()
            .map((currency) => <CurrencyChart currency={currency} weeks={[...byCurrency.get(currency)!.values()]} />)
        )}
      </section>
      <section class="card" aria-labelledby="failed-deliveries">
        <h2 id="failed-deliveries">Deliveries failed in the last 7 days</h2>
        {row.failed.length === 0 ? (
          <p>None.</p>
        ) : (
          <div class="table-wrap">
            <table class="collapse">
              <caption class="visually-hidden">The newest failures since {when(failedSince)}</caption>
              <thead>
                <tr>
                  <th scope="col">Delivery</th>
                  <th scope="col">Event type</th>
                  <th scope="col">Receiver</th>
                  <th scope="col">Failed at</th>
                </tr>
              </thead>
              <tbody>
                {row.failed.map(([id, eventType, url, updatedAt]) => (
                  <tr>
                    <td data-label="Delivery">
                      <a href={`/console/deliveries/${id}`}>
                        <code>{id}</code>
                      </a>
                    </td>
                    <td data-label="Event type">{eventType}</td>
                    <td data-label="Receiver">{url}</td>
                    <td data-label="Failed at" class="when">
                      {when(new Date(updatedAt).toISOString())}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

/** The Overview at `now` for the statement's `row`: the whole page, `<!doctype html>` included. */
export function bareOverviewPage(
  stylesheetHref: string,
  chartsHref: string,
  user: BareUser,
  row: BareOverviewRow,
  now: Date,
): string {
  return bareConsolePage(
    'Overview',
    stylesheetHref,
    user,
    <OverviewBody row={row} now={now} chartsHref={chartsHref} />,
  );
}
