/**
 * Overview: a banner while deliveries are failing, the figures that matter at a glance, and charts drawn
 * on the server as SVG (no script), each with a table of the same figures for screen readers: deliveries per day by
 * outcome with the success rate, debts by status, payments collected per week. Then the week's newest failures.
 * Every figure comes from rollups (core/rollups/overview-rollups.ts): the page costs the same at any tenant size.
 */
import type { ConsoleOverview } from '../../../core/staff/console-overview';
import { count, percent } from '../../charts/scale';
import { CollectedCharts } from '../overview/collected-chart';
import { DebtsChart } from '../overview/debts-chart';
import { DeliveriesChart, successRate } from '../overview/deliveries-chart';
import { when } from '../shared/format';

const deliveries = (n: number) => `${count(n)} webhook ${n === 1 ? 'delivery' : 'deliveries'}`;

function Banner({ failingNow, failed }: { failingNow: number; failed: number }) {
  if (failingNow === 0 && failed === 0) return null;
  return (
    <div class="flash flash-danger" role="alert">
      {failingNow > 0 && (
        <p>
          <strong>{deliveries(failingNow)} failing now</strong>: the latest attempt failed and{' '}
          {failingNow === 1 ? 'it is' : 'they are'} waiting to retry.{' '}
          <a href="/console/deliveries?status=Pending">See the pending deliveries</a>
        </p>
      )}
      {failed > 0 && (
        <p>
          <strong>{deliveries(failed)} failed in the last 7 days.</strong>{' '}
          <a href="/console/deliveries?status=Failed">See the failed deliveries</a>
        </p>
      )}
    </div>
  );
}

function Stat({ id, label, figure, hint }: { id: string; label: string; figure: string; hint: string }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{label}</h2>
      <span class="stat-figure">{figure}</span>
      <span class="hint">{hint}</span>
    </section>
  );
}

export function OverviewBody({
  overview,
  chartsStylesheetHref,
}: {
  overview: ConsoleOverview;
  chartsStylesheetHref: string;
}) {
  const failed = overview.failedDeliveryCount;
  const openDebts = overview.openDebts.reduce((sum, row) => sum + row.count, 0);
  const totals = overview.deliveryDays.reduce(
    (sum, d) => ({ succeeded: sum.succeeded + d.succeeded, failed: sum.failed + d.failed }),
    { succeeded: 0, failed: 0 },
  );
  const rate = successRate(totals);
  return (
    <>
      <link rel="stylesheet" href={chartsStylesheetHref} />
      <Banner failingNow={overview.failingNow} failed={failed} />
      <div class="overview-stats">
        <Stat
          id="failing-now"
          label="Failing now"
          figure={count(overview.failingNow)}
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
      <DeliveriesChart days={overview.deliveryDays} />
      <DebtsChart debts={overview.debtsByStatus} />
      <CollectedCharts collected={overview.collected} />
      <section class="card" aria-labelledby="failed-deliveries">
        <h2 id="failed-deliveries">Deliveries failed in the last 7 days</h2>
        {overview.recentFailures.length === 0 ? (
          <p>None.</p>
        ) : (
          <div class="table-wrap">
            <table class="collapse">
              <caption class="visually-hidden">The newest failures since {when(overview.failedSince)}</caption>
              <thead>
                <tr>
                  <th scope="col">Delivery</th>
                  <th scope="col">Event type</th>
                  <th scope="col">Receiver</th>
                  <th scope="col">Failed at</th>
                </tr>
              </thead>
              <tbody>
                {overview.recentFailures.map((d) => (
                  <tr key={d.id}>
                    <td data-label="Delivery">
                      <a href={`/console/deliveries/${d.id}`}>
                        <code>{d.id}</code>
                      </a>
                    </td>
                    <td data-label="Event type">{d.eventType}</td>
                    <td data-label="Receiver">{d.url}</td>
                    <td data-label="Failed at" class="when">
                      {when(d.failedAt)}
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
