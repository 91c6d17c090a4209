/** The Overview's debts by status (open ones first, then the finished), as bars and as a table. */
import { isTerminal, type DebtStatus } from '../../../core/debts/debt-status';
import { BarList } from '../../charts/bar-list';
import { count } from '../../charts/scale';
import { ChartScroll, COLOURS, Legend } from './chart-parts';

export function DebtsChart({ debts }: { debts: { status: DebtStatus; count: number }[] }) {
  const open = debts.filter((d) => !isTerminal(d.status));
  const finished = debts.filter((d) => isTerminal(d.status));
  const openTotal = open.reduce((sum, d) => sum + d.count, 0);
  const finishedTotal = finished.reduce((sum, d) => sum + d.count, 0);
  const summary = `${count(openTotal)} open and ${count(finishedTotal)} finished.`;
  return (
    <section class="card" aria-labelledby="debts-by-status">
      <h2 id="debts-by-status">Debts by status</h2>
      <p class="chart-summary">{summary}</p>
      <figure class="chart">
        <ChartScroll label="Debts by status (chart)">
          <BarList
            id="debts-chart"
            title="Debts by status"
            description={`One bar per status, open statuses first: ${debts.map((d) => `${d.status} ${d.count}`).join(', ')}.`}
            bars={[...open, ...finished].map((d) => ({
              label: d.status,
              value: d.count,
              colour: isTerminal(d.status) ? COLOURS.finished : COLOURS.open,
            }))}
          />
        </ChartScroll>
        <Legend
          entries={[
            { name: 'Open', colour: COLOURS.open, figure: count(openTotal) },
            { name: 'Finished', colour: COLOURS.finished, figure: count(finishedTotal) },
          ]}
        />
      </figure>
      {/* In a box that clips it: a table is never narrower than its content, whatever its width. */}
      <div class="visually-hidden">
        <table>
          <caption>Debts by status</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Open or finished</th>
              <th scope="col">Debts</th>
            </tr>
          </thead>
          <tbody>
            {[...open, ...finished].map((d) => (
              <tr key={d.status}>
                <th scope="row">{d.status}</th>
                <td>{isTerminal(d.status) ? 'Finished' : 'Open'}</td>
                <td>{d.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
