/** The plan builder: the organisation's bounds said up front, the schedule shown before the debtor confirms it. */
import type { Instalment, PlanRequest } from '../../core/lifecycle/model';
import type { PlanFrequency } from '../../core/debts/debt-status';
import { CsrfField } from '../layout';
import { ScheduleTable } from './debt-pages';
import { longDate, moneyText } from './format';
import { BackToAccount, ProblemBanner, invalidAttributes } from './form-parts';

export interface PlanFormProps {
  csrfToken: string;
  outstanding: string;
  currency: string;
  maxInstalments: number;
  frequencies: PlanFrequency[];
  minInstalment: string;
  firstDate: string;
  lastFirstDate: string;
  values: { instalmentCount: string; frequency: string; firstDueDate: string };
  problem?: string;
}

const HOW_OFTEN: Record<PlanFrequency, string> = {
  Weekly: 'Every week',
  Fortnightly: 'Every two weeks',
  Monthly: 'Every month',
};

export function PlanFormBody(props: PlanFormProps) {
  const invalid = invalidAttributes(props.problem, 'plan-problem');
  return (
    <>
      <ProblemBanner id="plan-problem" problem={props.problem} field="instalmentCount" />
      <section class="card">
        <p>
          Split your balance of {moneyText(props.outstanding, props.currency)} into smaller payments. You will see the
          schedule before you agree to it.
        </p>
        <ul>
          <li>
            Up to {props.maxInstalments} payment{props.maxInstalments === 1 ? '' : 's'}
            {Number(props.minInstalment) > 0 ? `, each at least ${moneyText(props.minInstalment, props.currency)}` : ''}
            .
          </li>
          <li>
            First payment between {longDate(props.firstDate)} and {longDate(props.lastFirstDate)}.
          </li>
        </ul>
        <form method="post" action="/portal/plan/preview" class="stack">
          <CsrfField token={props.csrfToken} />
          <label for="instalmentCount">Number of payments</label>
          <input
            id="instalmentCount"
            name="instalmentCount"
            type="number"
            inputMode="numeric"
            min={1}
            max={props.maxInstalments}
            required
            value={props.values.instalmentCount}
            {...invalid}
          />
          <fieldset>
            <legend>How often</legend>
            {props.frequencies.map((f) => (
              <div class="choice" key={f}>
                <input
                  type="radio"
                  id={`frequency-${f}`}
                  name="frequency"
                  value={f}
                  required
                  checked={props.values.frequency === f}
                />
                <label for={`frequency-${f}`}>{HOW_OFTEN[f]}</label>
              </div>
            ))}
          </fieldset>
          <label for="firstDueDate">Date of the first payment</label>
          <input
            id="firstDueDate"
            name="firstDueDate"
            type="date"
            min={props.firstDate}
            max={props.lastFirstDate}
            required
            value={props.values.firstDueDate}
            {...invalid}
          />
          <button type="submit" class="primary">
            Show me the schedule
          </button>
        </form>
        <BackToAccount />
      </section>
    </>
  );
}

export function PlanPreviewBody(props: {
  csrfToken: string;
  request: PlanRequest;
  schedule: Instalment[];
  currency: string;
}) {
  const { request } = props;
  return (
    <section class="card">
      <p>
        {props.schedule.length} payment{props.schedule.length === 1 ? '' : 's'},{' '}
        {HOW_OFTEN[request.frequency].toLowerCase()}, starting {longDate(request.firstDueDate)}. Nothing is set up until
        you agree.
      </p>
      <ScheduleTable schedule={props.schedule} currency={props.currency} caption="Your schedule" />
      <form method="post" action="/portal/plan" class="stack">
        <CsrfField token={props.csrfToken} />
        <input type="hidden" name="instalmentCount" value={String(request.instalmentCount)} />
        <input type="hidden" name="frequency" value={request.frequency} />
        <input type="hidden" name="firstDueDate" value={request.firstDueDate} />
        <button type="submit" class="primary">
          I agree to this plan
        </button>
      </form>
      <p>
        <a href="/portal/plan">Change the plan</a>
      </p>
    </section>
  );
}
