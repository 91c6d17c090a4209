/** The pages before the second factor: the collector's frame only, nothing about the creditor or the debt. */
import { CsrfField } from '../layout';

export function EnterBody() {
  return (
    <section class="card">
      <p>To see your account, open the link in the email we sent you. Each link is for one account.</p>
      <p>If you cannot find the email, contact us using the details at the bottom of this page.</p>
    </section>
  );
}

export interface VerifyProps {
  csrfToken: string;
  action: string;
  values?: { accountReference: string; surname: string };
  failed?: boolean;
}

export function VerifyBody({ csrfToken, action, values, failed }: VerifyProps) {
  return (
    <>
      {failed && (
        <div class="problem" role="alert" id="verify-problem">
          <p>
            <strong>Those details do not match this link.</strong> Check them and try again. If the link is old, it may
            have been replaced: contact us for a new one.
          </p>
        </div>
      )}
      <section class="card">
        <p>To keep your account private, please tell us two things we already know.</p>
        <form method="post" action={action} class="stack">
          <CsrfField token={csrfToken} />
          <label for="accountReference">Account reference</label>
          <p class="hint" id="accountReference-hint">
            The reference the company you owe uses for this account, as on their letters or statements (for example
            ACCT-0001).
          </p>
          <input
            id="accountReference"
            name="accountReference"
            type="text"
            required
            autocomplete="off"
            aria-describedby={failed ? 'accountReference-hint verify-problem' : 'accountReference-hint'}
            {...(failed ? { 'aria-invalid': 'true' } : {})}
            value={values?.accountReference ?? ''}
          />
          <label for="surname">Your surname (family name)</label>
          <input
            id="surname"
            name="surname"
            type="text"
            required
            autocomplete="family-name"
            {...(failed ? { 'aria-invalid': 'true', 'aria-describedby': 'verify-problem' } : {})}
            value={values?.surname ?? ''}
          />
          <button type="submit" class="primary">
            Continue
          </button>
        </form>
      </section>
      <p class="muted">After a few wrong tries this link stops accepting answers for an hour.</p>
    </>
  );
}

export function SignedOutBody() {
  return (
    <section class="card">
      <p>You have signed out. To come back, open the link in your email again.</p>
    </section>
  );
}
