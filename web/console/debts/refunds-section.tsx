/**
 * The debt page's refunds: payments a processor took that the debt refused (settled or closed meanwhile, or more
 * than the balance), returned in full (core/payments/refunds.ts). Pending means the processor has not confirmed yet:
 * it is asked again when the processor reports the payment again (Stripe resends its webhook until it is answered).
 */
import type { Refund } from '../../../core/payments/refunds';
import { money } from '../../money-format';
import { When } from '../shared/time';

export function RefundsSection({ refunds }: { refunds: Refund[] }) {
  if (refunds.length === 0) return null;
  return (
    <section class="card" aria-labelledby="refunds">
      <h2 id="refunds">Refunded payments</h2>
      <p class="muted">
        Payments the debt could not take were returned in full to the debtor; none of them changed the balance.
      </p>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Refunded payments table">
        <table>
          <thead>
            <tr>
              <th scope="col">Refunded</th>
              <th scope="col">Amount</th>
              <th scope="col">Payment</th>
              <th scope="col">Refund</th>
              <th scope="col">Status</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {refunds.map((r) => (
              <tr key={r.id}>
                <td>
                  <When iso={r.refundedAt ?? r.createdAt} />
                </td>
                <td>{money(r.amount, r.currency)}</td>
                <td>{r.paymentReference}</td>
                <td>{r.processorReference ?? '–'}</td>
                <td>{r.status === 'succeeded' ? 'Refunded' : 'Pending'}</td>
                <td>{r.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
