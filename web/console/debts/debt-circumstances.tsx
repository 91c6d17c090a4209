/**
 * A debt's "circumstances" on the console's debt page: what the debtor told the creditor through the portal's
 * "Tell us about your circumstances" form (core/portal/circumstances.ts), newest first.
 */
import type { DebtorCircumstance } from '../../../core/portal/circumstances';
import { When } from '../shared/time';

export function DebtCircumstances({ circumstances }: { circumstances: DebtorCircumstance[] }) {
  return (
    <section class="card" aria-labelledby="circumstances">
      <h2 id="circumstances">Debtor’s circumstances</h2>
      {circumstances.length === 0 ? (
        <p>The debtor has not told you about their circumstances in the portal.</p>
      ) : (
        <ul>
          {circumstances.map((c) => (
            <li key={c.id}>
              <p class="muted">
                <When iso={c.createdAt} />
              </p>
              <p class="excerpt">{c.body}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
