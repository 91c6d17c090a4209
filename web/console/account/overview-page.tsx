/** Overview: open debts by status, and deliveries failed in the last 7 days under a banner that links to them. */
import type { ConsoleOverview } from '../../../core/staff/console-overview';

export function OverviewBody({ overview }: { overview: ConsoleOverview }) {
  const failed = overview.failedDeliveryCount;
  return (
    <>
      {failed > 0 && (
        <div class="banner" role="alert">
          <strong>
            {failed} webhook {failed === 1 ? 'delivery' : 'deliveries'} failed in the last 7 days.
          </strong>{' '}
          <a href="/console/deliveries?status=Failed">See the failed deliveries</a>
        </div>
      )}
      <section class="card" aria-labelledby="open-debts">
        <h2 id="open-debts">Open debts by status</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Debts</th>
            </tr>
          </thead>
          <tbody>
            {overview.openDebts.map((row) => (
              <tr key={row.status}>
                <td>{row.status}</td>
                <td>{row.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="failed-deliveries">
        <h2 id="failed-deliveries">Deliveries failed in the last 7 days</h2>
        {overview.failedDeliveries.length === 0 ? (
          <p>None.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Event type</th>
                <th scope="col">Receiver</th>
                <th scope="col">Failed at</th>
              </tr>
            </thead>
            <tbody>
              {overview.failedDeliveries.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={`/console/deliveries/${d.id}`}>
                      <code>{d.id}</code>
                    </a>
                  </td>
                  <td>{d.eventType}</td>
                  <td>{d.url}</td>
                  <td>{d.failedAt}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
