/**
 * The sandbox's simulations on a debt's page (sandbox host only): one small form per act of the debtor, operations or
 * the payment processor, each posting to `/console/debts/{id}/simulate/{action}`, which plays it through the
 * lifecycle's triggers as `POST /v1/sandbox/debts/{id}/…` does. Every act is offered whatever the debt's state, as the
 * API accepts every request: the lifecycle's refusal (accept on a Disputed debt) is said above the forms, as the API's
 * `409 invalid_state` would say it to a client.
 */
import { PLAN_FREQUENCIES } from '../../../core/debts/debt-status';
import type { Debt } from '../../../core/debts/debts';
import type { SimulationAction } from '../../../core/lifecycle/simulations';
import { CsrfField } from '../../layout';

/** What the last simulation did: a notice after it ran, or its refusal with the values to try again. */
export type SimulationOutcome =
  | { kind: 'done'; message: string }
  | {
      kind: 'refused';
      action: SimulationAction;
      problems: string[];
      values: Record<string, string>;
      invalid: Set<string>;
    };

export interface SimulationPanelProps {
  debt: Debt;
  csrfToken: string;
  canSimulate: boolean;
  /** Today (UTC), the plan's first due date offered. */
  today: string;
  outcome?: SimulationOutcome;
}

export const SIMULATION_LABELS: Record<string, string> = {
  reason: 'Reason',
  outcome: 'Outcome',
  instalmentCount: 'Instalments',
  frequency: 'Frequency',
  firstDueDate: 'First due date',
  amount: 'Amount',
  processorReference: 'Processor reference',
  status: 'Result',
};

const ACTION_NAMES: Record<SimulationAction, string> = {
  accept: 'Accept',
  dispute: 'Dispute',
  resolve: 'Resolve the dispute',
  plan: 'Agree a plan',
  payment: 'Report a payment',
  advance: 'Advance to the next timer',
};

export function SimulationPanel(props: SimulationPanelProps) {
  const { debt, outcome } = props;
  return (
    <section class="card" aria-labelledby="simulations" id="simulate">
      <h2 id="simulations">Simulations</h2>
      <p>
        Play the debtor, operations and the payment processor on this test debt, as the API’s{' '}
        <code>/v1/sandbox/debts/{'{id}'}/…</code> endpoints do. Each runs the debt’s real lifecycle: the page answers
        once the change and its events are recorded, and your webhook receiver gets the events.
      </p>
      {outcome?.kind === 'done' && (
        <p class="notice" role="status">
          {outcome.message}
        </p>
      )}
      {outcome?.kind === 'refused' && (
        <div class="error-summary" role="alert">
          <p>
            <strong>{ACTION_NAMES[outcome.action]} was refused.</strong> Nothing changed.
          </p>
          <ul>
            {outcome.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      {props.canSimulate ? (
        <SimulationForms {...props} debt={debt} />
      ) : (
        <p class="muted">Only an owner, an admin or a developer can run simulations.</p>
      )}
    </section>
  );
}

function SimulationForms({ debt, csrfToken, today, outcome }: SimulationPanelProps) {
  const refused = outcome?.kind === 'refused' ? outcome : undefined;
  const value = (action: SimulationAction, name: string, fallback: string) =>
    refused?.action === action ? (refused.values[name] ?? fallback) : fallback;
  const invalid = (action: SimulationAction, name: string) =>
    refused?.action === action && refused.invalid.has(name) ? true : undefined;
  // The fragment brings a refusal (the page answering the POST) into view, as the notice after a redirect.
  const action = (name: SimulationAction) => `/console/debts/${debt.id}/simulate/${name}#simulate`;
  const amount = debt.plan?.status === 'Active' ? debt.plan.instalmentAmount : debt.outstandingPrincipal;
  return (
    <div class="simulations">
      <form method="post" action={action('accept')} aria-labelledby="sim-accept">
        <h3 id="sim-accept">The debtor accepts</h3>
        <CsrfField token={csrfToken} />
        <p class="hint">From PendingAssignment: the debt becomes Accepted.</p>
        <button type="submit">Accept</button>
      </form>

      <form method="post" action={action('dispute')} aria-labelledby="sim-dispute">
        <h3 id="sim-dispute">The debtor disputes</h3>
        <CsrfField token={csrfToken} />
        <label for="sim-reason">Reason</label>
        <input
          id="sim-reason"
          name="reason"
          type="text"
          value={value('dispute', 'reason', '')}
          aria-invalid={invalid('dispute', 'reason')}
        />
        <button type="submit">Dispute</button>
      </form>

      <form method="post" action={action('resolve')} aria-labelledby="sim-resolve">
        <h3 id="sim-resolve">Operations resolve the dispute</h3>
        <CsrfField token={csrfToken} />
        <fieldset>
          <legend>Outcome</legend>
          <input
            type="radio"
            id="sim-rejected"
            name="outcome"
            value="rejected"
            checked={value('resolve', 'outcome', 'rejected') === 'rejected'}
          />
          <label for="sim-rejected">Rejected (PendingAssignment again)</label>
          <br />
          <input
            type="radio"
            id="sim-upheld"
            name="outcome"
            value="upheld"
            checked={value('resolve', 'outcome', 'rejected') === 'upheld'}
          />
          <label for="sim-upheld">Upheld (WrittenOff)</label>
        </fieldset>
        <button type="submit">Resolve</button>
      </form>

      <form method="post" action={action('plan')} aria-labelledby="sim-plan">
        <h3 id="sim-plan">The debtor agrees a plan</h3>
        <CsrfField token={csrfToken} />
        <label for="sim-count">Instalments</label>
        <input
          id="sim-count"
          name="instalmentCount"
          type="text"
          inputMode="numeric"
          value={value('plan', 'instalmentCount', '6')}
          aria-invalid={invalid('plan', 'instalmentCount')}
        />
        <label for="sim-frequency">Frequency</label>
        <select id="sim-frequency" name="frequency">
          {PLAN_FREQUENCIES.map((f) => (
            <option key={f} value={f} selected={value('plan', 'frequency', 'Monthly') === f}>
              {f}
            </option>
          ))}
        </select>
        <label for="sim-first">First due date</label>
        <span class="hint" id="sim-first-hint">
          YYYY-MM-DD, today (UTC) or later
        </span>
        <input
          id="sim-first"
          name="firstDueDate"
          type="text"
          value={value('plan', 'firstDueDate', today)}
          aria-describedby="sim-first-hint"
          aria-invalid={invalid('plan', 'firstDueDate')}
        />
        <button type="submit">Agree the plan</button>
      </form>

      <form method="post" action={action('payment')} aria-labelledby="sim-payment">
        <h3 id="sim-payment">The processor reports a payment</h3>
        <CsrfField token={csrfToken} />
        <label for="sim-amount">Amount ({debt.currency})</label>
        <input
          id="sim-amount"
          name="amount"
          type="text"
          inputMode="decimal"
          value={value('payment', 'amount', String(amount))}
          aria-invalid={invalid('payment', 'amount')}
        />
        <label for="sim-reference">Processor reference (optional)</label>
        <input
          id="sim-reference"
          name="processorReference"
          type="text"
          value={value('payment', 'processorReference', '')}
          aria-invalid={invalid('payment', 'processorReference')}
        />
        <div class="sim-buttons">
          <button type="submit" name="status" value="Succeeded">
            Pay
          </button>
          <button type="submit" name="status" value="Failed" class="secondary">
            Fail the payment
          </button>
        </div>
      </form>

      <form method="post" action={action('advance')} aria-labelledby="sim-advance">
        <h3 id="sim-advance">Time passes</h3>
        <CsrfField token={csrfToken} />
        <p class="hint">
          Fires the plan’s next timer now: an instalment’s due date (it is late), then the end of its 7-day grace period
          (the plan defaults).
        </p>
        <button type="submit">Advance to the next timer</button>
      </form>
    </div>
  );
}
