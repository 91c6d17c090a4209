/**
 * The sandbox host's own pages: the sign-up form (anonymous), the page that answers a confirmed sign-up (the first
 * test key, shown once), the Sandbox page (where the test data's reset stands, as `GET /v1/sandbox/reset` reports it) and the reset's
 * confirmation.
 */
import type { ApiKey } from '../../../core/access/api-keys';
import type { Organization } from '../../../core/access/organizations';
import type { SandboxResetStatus } from '../../../core/sandbox/reset-status';
import { CsrfField } from '../../layout';
import { When } from '../shared/time';

export interface SignUpFormProps {
  csrfToken: string;
  values?: { organizationName?: string; email?: string };
  problems?: string[];
  invalid?: Set<string>;
}

export function SignUpForm({ csrfToken, values = {}, problems = [], invalid = new Set() }: SignUpFormProps) {
  const problem = (name: string) => (invalid.has(name) ? true : undefined);
  return (
    <section class="card">
      <p>
        A sandbox organisation of your own: test data (5 debtors and 8 debts across the lifecycle) and a test key with
        every scope. We email you a link that creates it, with you as its owner; then you can invite your team.
      </p>
      {problems.length > 0 && (
        <div class="error-summary" role="alert">
          <p>
            <strong>Your sandbox was not created.</strong>
          </p>
          <ul>
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      <form method="post" action="/console/sign-up">
        <CsrfField token={csrfToken} />
        <label for="organizationName">Organisation name</label>
        <span class="hint" id="organizationName-hint">
          Optional: “Sandbox organisation” if left empty.
        </span>
        <input
          id="organizationName"
          name="organizationName"
          type="text"
          autoComplete="organization"
          value={values.organizationName ?? ''}
          aria-describedby="organizationName-hint"
          aria-invalid={problem('organizationName')}
        />
        <label for="email">Email address</label>
        <span class="hint" id="email-hint">
          You sign in with it later: we email you a link.
        </span>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="email"
          required
          value={values.email ?? ''}
          aria-describedby="email-hint"
          aria-invalid={problem('email')}
        />
        <button type="submit">Create my sandbox</button>
      </form>
      <p>
        Already signed up? <a href="/console/sign-in">Sign in</a>
      </p>
    </section>
  );
}

export function SignedUpBody(props: { organization: Organization; apiKey: ApiKey; secret: string; apiBase: string }) {
  const { organization, apiKey, secret } = props;
  return (
    <>
      <p class="notice" role="status">
        Your sandbox organisation <strong>{organization.name}</strong> is ready with its test data, and you are signed
        in as its owner.
      </p>
      <section class="card" aria-labelledby="first-key">
        <h2 id="first-key">Your first test key</h2>
        <p>
          <strong>{apiKey.name}</strong>, with every scope. This is the only time it is shown: copy it now and store it
          safely. You can mint more, and revoke this one, on the API keys page.
        </p>
        <p class="secret" id="secret">
          {secret}
        </p>
        <p>Try it:</p>
        <pre class="command">{`curl ${props.apiBase}/v1/debts \\\n  -H "Authorization: Bearer ${secret}"`}</pre>
      </section>
      <section class="card" aria-labelledby="next">
        <h2 id="next">Next</h2>
        <ul>
          <li>
            <a href="/console/debts">Your test debts</a>: open one to play the debtor and the payment processor.
          </li>
          <li>
            <a href="/console/webhooks">Webhooks</a>: set your receiver to get the events.
          </li>
          <li>
            <a href="/console/sandbox">Sandbox</a>: when your test data is reset, or reset it now.
          </li>
        </ul>
      </section>
    </>
  );
}

export function SandboxBody(props: {
  status: SandboxResetStatus;
  canReset: boolean;
  csrfToken: string;
  requested: boolean;
}) {
  const { status } = props;
  const underWay = status.status === 'Requested';
  return (
    <>
      {underWay ? (
        <div class="flash flash-info" role="status">
          <p>Your reset is under way: it usually ends within seconds. This page reloads itself until it is done.</p>
          <progress aria-label="Reset under way" />
        </div>
      ) : (
        props.requested && (
          <p class="flash" role="status">
            Your test data was reset.
          </p>
        )
      )}
      <section class="card" aria-labelledby="reset">
        <h2 id="reset">Test data reset</h2>
        <p>
          Your test data is wiped and seeded again after 7 days without an API request with one of your keys, or now,
          when you ask. A reset wipes your debts, debtors, transactions, documents, placements, events, webhook
          deliveries and idempotency records, and seeds the dataset again; it keeps your organisation, its team,
          branding, API keys and webhook receiver. This is what <code>GET /v1/sandbox/reset</code> reports.
        </p>
        <dl class="facts">
          <dt>Status</dt>
          <dd>{underWay ? 'Requested: a reset is under way' : 'Scheduled'}</dd>
          <dt>Last API use</dt>
          <dd>
            <When iso={status.lastUsedAt} />
          </dd>
          <dt>Next idle reset</dt>
          <dd>
            <When iso={status.nextResetAt} />
          </dd>
          <dt>Last reset</dt>
          <dd>
            <When iso={status.lastResetAt} none="Never" />
          </dd>
        </dl>
        {props.canReset ? (
          !underWay && (
            <form method="post" action="/console/sandbox/reset">
              <CsrfField token={props.csrfToken} />
              <p>Resetting wipes the data listed above at once and seeds it again. It cannot be undone.</p>
              <button type="submit" class="danger">
                Reset sandbox now
              </button>
            </form>
          )
        ) : (
          <p class="muted">Only an owner, an admin or a developer can reset the sandbox.</p>
        )}
      </section>
    </>
  );
}

export function ResetConfirmBody({ csrfToken }: { csrfToken: string }) {
  return (
    <section class="card">
      <p>
        Reset your sandbox now? Your debts, debtors, transactions, documents, events, webhook deliveries and idempotency
        records are wiped and the dataset is seeded again; your team, branding, API keys and webhook receiver stay. Your
        webhook receiver gets no events for the new seed. This cannot be undone.
      </p>
      <form method="post" action="/console/sandbox/reset">
        <CsrfField token={csrfToken} />
        <button type="submit" class="danger">
          Reset sandbox now
        </button>{' '}
        <a href="/console/sandbox">Cancel</a>
      </form>
    </section>
  );
}
