/**
 * The Overview's payments collected per week (Monday to Sunday, UTC), one chart per currency: amounts of different
 * currencies are never added up. Exact amounts (decimal text) are in the table; the columns' heights are drawn from
 * them as numbers, which only pixels need.
 */
import { addAmounts, toMoneyNumber } from '../../../core/debts/money';
import type { CollectedWeek } from '../../../core/rollups/overview-rollups';
import { ColumnChart } from '../../charts/column-chart';
import { count, shortDate, shortNumber } from '../../charts/scale';
import { money } from '../../money-format';
import { ChartScroll, COLOURS, Legend } from './chart-parts';

export function CollectedCharts({ collected }: { collected: { currency: string; weeks: CollectedWeek[] }[] }) {
  return (
    <section class="card" aria-labelledby="collected-per-week">
      <h2 id="collected-per-week">Payments collected per week</h2>
      {collected.length === 0 ? (
        <p>No payment collected in the last 12 weeks.</p>
      ) : (
        collected.map(({ currency, weeks }) => <CurrencyChart key={currency} currency={currency} weeks={weeks} />)
      )}
    </section>
  );
}

function CurrencyChart({ currency, weeks }: { currency: string; weeks: CollectedWeek[] }) {
  const total = addAmounts(...weeks.map((w) => w.amount));
  const payments = weeks.reduce((sum, w) => sum + w.payments, 0);
  const amount = (value: string) => money(toMoneyNumber(value, currency), currency);
  const summary = `${amount(total)} in ${count(payments)} ${payments === 1 ? 'payment' : 'payments'} over 12 weeks.`;
  const id = `collected-${currency.toLowerCase()}`;
  return (
    <>
      <h3 id={`${id}-heading`}>{currency}</h3>
      <p class="chart-summary">{summary}</p>
      <figure class="chart">
        <ChartScroll label={`Payments collected per week in ${currency} (chart)`}>
          <ColumnChart
            id={id}
            title={`Payments collected per week in ${currency}`}
            description={`Columns, one per week starting Monday (UTC) from ${shortDate(weeks[0]?.week ?? '')}: the amount collected that week. ${summary} The table that follows gives each week's amount.`}
            series={[{ name: `Collected (${currency})`, colour: COLOURS.collected }]}
            columns={weeks.map((w) => ({ label: shortDate(w.week), values: [toMoneyNumber(w.amount, currency)] }))}
            axisLabel={shortNumber}
          />
        </ChartScroll>
        <Legend entries={[{ name: `Collected, ${currency}`, colour: COLOURS.collected, figure: amount(total) }]} />
      </figure>
      {/* In a box that clips it: a table is never narrower than its content, whatever its width. */}
      <div class="visually-hidden">
        <table>
          <caption>Payments collected per week in {currency}</caption>
          <thead>
            <tr>
              <th scope="col">Week starting</th>
              <th scope="col">Collected</th>
              <th scope="col">Payments</th>
            </tr>
          </thead>
          <tbody>
            {weeks.map((w) => (
              <tr key={w.week}>
                <th scope="row">{w.week}</th>
                <td>{amount(w.amount)}</td>
                <td>{w.payments}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
