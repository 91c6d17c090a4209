/** The Overview's deliveries per UTC day by outcome over 30 days, with the day's success rate, and its table. */
import type { DeliveryDay } from '../../../core/rollups/overview-rollups';
import { ColumnChart } from '../../charts/column-chart';
import { count, percent, shortDate } from '../../charts/scale';
import { ChartScroll, COLOURS, Legend } from './chart-parts';

/** Delivered of the day's finished deliveries; null for a day with none. */
export function successRate(day: Pick<DeliveryDay, 'succeeded' | 'failed'>): number | null {
  const finished = day.succeeded + day.failed;
  return finished === 0 ? null : day.succeeded / finished;
}

export function DeliveriesChart({ days }: { days: DeliveryDay[] }) {
  const delivered = days.reduce((sum, d) => sum + d.succeeded, 0);
  const failed = days.reduce((sum, d) => sum + d.failed, 0);
  const overall = successRate({ succeeded: delivered, failed });
  const summary =
    overall === null
      ? 'No delivery finished in the last 30 days.'
      : `${count(delivered)} delivered and ${count(failed)} failed in the last 30 days: ${percent(overall)} succeeded.`;
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  return (
    <section class="card" aria-labelledby="deliveries-per-day">
      <h2 id="deliveries-per-day">Webhook deliveries per day</h2>
      <p class="chart-summary">{summary}</p>
      <figure class="chart">
        <ChartScroll label="Webhook deliveries per day (chart)">
          <ColumnChart
            id="deliveries-chart"
            title="Webhook deliveries per day by outcome, with the success rate"
            description={`Stacked columns, one per UTC day from ${shortDate(first)} to ${shortDate(last)}: deliveries that finished that day, delivered below and failed above; a dashed line gives each day's success rate. ${summary} The table that follows gives each day's figures.`}
            series={[
              { name: 'Delivered', colour: COLOURS.delivered },
              { name: 'Failed', colour: COLOURS.failed },
            ]}
            columns={days.map((d) => ({ label: shortDate(d.day), values: [d.succeeded, d.failed] }))}
            rate={{ name: 'Success rate', values: days.map(successRate) }}
          />
        </ChartScroll>
        <Legend
          entries={[
            { name: 'Delivered', colour: COLOURS.delivered, figure: count(delivered) },
            { name: 'Failed', colour: COLOURS.failed, figure: count(failed) },
            { name: 'Success rate (right axis)', colour: '#1b1f24', line: true },
          ]}
        />
      </figure>
      {/* In a box that clips it: a table is never narrower than its content, whatever its width. */}
      <div class="visually-hidden">
        <table>
          <caption>Webhook deliveries finished per UTC day, last 30 days</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Delivered</th>
              <th scope="col">Failed</th>
              <th scope="col">Success rate</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => {
              const rate = successRate(d);
              return (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{d.succeeded}</td>
                  <td>{d.failed}</td>
                  <td>{rate === null ? '–' : percent(rate)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
