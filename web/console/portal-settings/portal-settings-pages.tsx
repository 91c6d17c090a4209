/**
 * Debtor portal settings: the plan rules the portal's plan builder applies (core/portal/plan-rules.ts). Every role
 * reads them; owners and admins change them. The defaults are said on the page.
 */
import { PLAN_FREQUENCIES } from '../../../core/debts/debt-status';
import { DEFAULT_PLAN_RULES, type PlanRules } from '../../../core/portal/plan-rules';
import { CsrfField } from '../../layout';

export interface PortalSettingsValues {
  maxInstalments: string;
  frequencies: string[];
  minInstalmentAmount: string;
  firstDueWithinDays: string;
}

export interface PortalSettingsProps {
  csrfToken: string;
  canChange: boolean;
  values: PortalSettingsValues;
  saved?: boolean;
  problem?: string;
}

export function settingsValues(rules: PlanRules): PortalSettingsValues {
  return {
    maxInstalments: String(rules.maxInstalments),
    frequencies: rules.frequencies,
    minInstalmentAmount: rules.minInstalmentAmount,
    firstDueWithinDays: String(rules.firstDueWithinDays),
  };
}

const d = DEFAULT_PLAN_RULES;

export function PortalSettingsBody(props: PortalSettingsProps) {
  const { values } = props;
  const disabled = !props.canChange;
  const invalid = props.problem ? { 'aria-invalid': 'true' as const, 'aria-describedby': 'problem' } : {};
  return (
    <>
      {props.problem && (
        <div class="flash flash-danger" role="alert" id="problem">
          <strong>The settings were not saved.</strong> {props.problem}
        </div>
      )}
      {props.saved && (
        <p class="notice" role="status">
          Saved. Debtors building a plan in the portal get these rules now.
        </p>
      )}
      <section class="card" aria-labelledby="plan-rules">
        <h2 id="plan-rules">Payment plan rules</h2>
        <p class="muted">
          What a debtor may choose when agreeing an instalment plan in the portal. Defaults: at most {d.maxInstalments}{' '}
          instalments, weekly, fortnightly or monthly, each at least {d.minInstalmentAmount} in the debt’s currency, the
          first due within {d.firstDueWithinDays} days. Plans already agreed do not change.
        </p>
        {!props.canChange && <p class="muted">Only an owner or an admin can change these rules.</p>}
        <form method="post" action="/console/portal-settings">
          <CsrfField token={props.csrfToken} />
          <div>
            <label for="maxInstalments">Most instalments</label>
            <input
              id="maxInstalments"
              name="maxInstalments"
              type="number"
              min={1}
              max={520}
              value={values.maxInstalments}
              disabled={disabled}
              {...invalid}
            />
          </div>
          <fieldset>
            <legend>Frequencies allowed</legend>
            {PLAN_FREQUENCIES.map((f) => (
              <div key={f}>
                <input
                  type="checkbox"
                  id={`frequency-${f}`}
                  name="frequencies"
                  value={f}
                  checked={values.frequencies.includes(f)}
                  disabled={disabled}
                />
                <label for={`frequency-${f}`}>{f}</label>
              </div>
            ))}
          </fieldset>
          <div>
            <label for="minInstalmentAmount">Smallest instalment (in the debt’s currency; 0 for none)</label>
            <input
              id="minInstalmentAmount"
              name="minInstalmentAmount"
              type="text"
              inputMode="decimal"
              value={values.minInstalmentAmount}
              disabled={disabled}
              {...invalid}
            />
          </div>
          <div>
            <label for="firstDueWithinDays">First instalment due within (days from the day the plan is agreed)</label>
            <input
              id="firstDueWithinDays"
              name="firstDueWithinDays"
              type="number"
              min={0}
              max={366}
              value={values.firstDueWithinDays}
              disabled={disabled}
              {...invalid}
            />
          </div>
          {props.canChange && (
            <div class="actions">
              <button type="submit">Save plan rules</button>
            </div>
          )}
        </form>
      </section>
    </>
  );
}
