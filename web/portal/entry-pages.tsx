/** The pages before the second factor: the collector's frame only, nothing about the creditor or the debt. */
import type { Factor } from '../../core/portal/asked-factors';
import { CsrfField } from '../layout';
import { ProblemBanner } from './form-parts';
import { FIRST_FIELD, PROBLEM_ID, VerifyFields, type VerifyValues } from './verify-fields';

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
  /** What the form asks for: the debtor's strongest pair (core/portal/asked-factors.ts). */
  factors: readonly Factor[];
  values?: VerifyValues;
  failed?: boolean;
}

const FACTOR_NAMES: Record<Factor, string> = {
  accountReference: 'the account reference',
  surname: 'your surname',
  dateOfBirth: 'your date of birth',
  postcode: 'your postcode',
};

export function VerifyBody({ csrfToken, action, factors, values, failed }: VerifyProps) {
  return (
    <>
      {failed && (
        <ProblemBanner
          id={PROBLEM_ID}
          field={FIRST_FIELD[factors[0] ?? 'accountReference']}
          problem="Those details do not match this link."
        >
          <p>Check them and try again. If the link is old, it may have been replaced: contact us for a new one.</p>
        </ProblemBanner>
      )}
      <section class="card">
        <p>
          To keep your account private, please tell us two things we already know:{' '}
          {factors.map((f) => FACTOR_NAMES[f]).join(' and ')}.
        </p>
        <form method="post" action={action} class="stack">
          <CsrfField token={csrfToken} />
          <VerifyFields factors={factors} values={values ?? {}} failed={failed ?? false} />
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
