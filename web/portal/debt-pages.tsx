/** The debt's page and the dispute form, in plain words; actions only where the state allows them. */
import type { PortalTransaction } from '../../core/portal/debt-reads';
import { debtorActions, STATUS_WORDS } from '../../core/portal/debtor-actions';
import { CsrfField } from '../layout';
import type { DebtView } from './debt-view';
import { longDate, moneyText } from './format';
import { MessageForm } from './form-parts';

const DONE: Record<string, string> = {
  accepted: 'Thank you. You have accepted this debt.',
  disputed: 'We have your dispute. Payments are paused while we look into it, and we will write to you.',
  plan: 'Your payment plan is set up. The schedule is below.',
  circumstances: 'Thank you. We have passed your message to the creditor.',
  preferences: 'Your contact preferences are saved.',
};

/** The status badge and its tone (design.css): the words carry the meaning, the colour only repeats it. */
const STATUS_BADGES: Record<DebtView['debt']['status'], string> = {
  PendingAssignment: 'badge badge-warning',
  Accepted: 'badge',
  Active: 'badge',
  InArrears: 'badge badge-danger',
  Disputed: 'badge badge-warning',
  Settled: 'badge badge-success',
  WrittenOff: 'badge badge-success',
  Closed: 'badge',
};

export interface DebtPageProps {
  view: DebtView;
  creditorName: string;
  csrfToken: string;
  done?: string;
}

export function DebtBody({ view, creditorName, csrfToken, done }: DebtPageProps) {
  const { debt } = view;
  const actions = debtorActions(debt.status);
  const notice = done ? DONE[done] : undefined;
  return (
    <>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <section class="card" aria-labelledby="balance-heading">
        <h2 id="balance-heading">What you owe {creditorName}</h2>
        <p class="balance">{moneyText(debt.outstandingPrincipal, debt.currency)}</p>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <span class={STATUS_BADGES[debt.status]}>{STATUS_WORDS[debt.status]}</span>
          </dd>
          <dt>Original amount</dt>
          <dd class="money">{moneyText(debt.originalPrincipal, debt.currency)}</dd>
          <dt>Account reference</dt>
          <dd>{debt.externalAccountId}</dd>
        </dl>
      </section>
      <Outcome view={view} />
      {actions.accept || actions.plan || actions.pay || actions.dispute ? (
        <section class="card" aria-labelledby="actions-heading">
          <h2 id="actions-heading">What you can do</h2>
          {actions.accept && (
            <form method="post" action="/portal/accept" class="stack">
              <CsrfField token={csrfToken} />
              <p>If this debt is yours and the amount is right, you can accept it. You can then set up a plan.</p>
              <button type="submit" class="primary">
                I accept this debt
              </button>
            </form>
          )}
          <ul class="actions">
            {actions.pay && (
              <li>
                <a class="button" href="/portal/pay">
                  Make a payment
                </a>
              </li>
            )}
            {actions.plan && (
              <li>
                <a class="button" href="/portal/plan">
                  Set up a payment plan
                </a>
              </li>
            )}
            {actions.dispute && (
              <li>
                <a href="/portal/dispute">I do not agree with this debt</a>
              </li>
            )}
          </ul>
        </section>
      ) : null}
      {view.schedule.length > 0 && <PlanSection view={view} />}
      <TransactionsSection transactions={view.transactions} />
      {actions.talk && (
        <section class="card" aria-labelledby="more-heading">
          <h2 id="more-heading">More</h2>
          <ul class="actions">
            <li>
              <a href="/portal/circumstances">Tell us about your circumstances</a>
            </li>
            <li>
              <a href="/portal/preferences">Contact preferences</a>
            </li>
          </ul>
        </section>
      )}
    </>
  );
}

function Outcome({ view }: { view: DebtView }) {
  const { debt } = view;
  if (debt.status === 'Disputed') {
    return (
      <section class="card" aria-labelledby="dispute-heading">
        <h2 id="dispute-heading">Your dispute</h2>
        {debt.disputeReason && <p class="quote">{debt.disputeReason}</p>}
        <p>We are looking into it. Payments are paused until then. We will write to you with the outcome.</p>
      </section>
    );
  }
  if (!debtorActions(debt.status).talk) {
    const words: Record<string, string> = {
      Settled: 'This debt is paid in full. Thank you. There is nothing more to pay.',
      WrittenOff: 'This debt has been written off. You do not need to pay anything more.',
      Closed: 'The creditor has closed this account with us. We will not ask you for payment on it.',
    };
    return (
      <section class="card" aria-labelledby="outcome-heading">
        <h2 id="outcome-heading">Outcome</h2>
        <p>{words[debt.status]}</p>
      </section>
    );
  }
  return null;
}

function PlanSection({ view }: { view: DebtView }) {
  const { debt, schedule } = view;
  const plan = debt.plan;
  return (
    <section class="card" aria-labelledby="plan-heading">
      <h2 id="plan-heading">Your payment plan</h2>
      {plan && (
        <p>
          {plan.frequency} payments, {plan.instalmentsPaid} of {plan.instalmentCount} paid
          {plan.status !== 'Active' ? ` (plan ${plan.status.toLowerCase()})` : ''}.
          {plan.nextDueDate && plan.status === 'Active' ? ` Next payment due ${longDate(plan.nextDueDate)}.` : ''}
        </p>
      )}
      <ScheduleTable schedule={schedule} currency={debt.currency} caption="Payment schedule" />
    </section>
  );
}

export function ScheduleTable(props: {
  schedule: { dueDate: string; amount: string; paid: string }[];
  currency: string;
  caption: string;
}) {
  return (
    <table class="schedule">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Due</th>
          <th scope="col">Amount</th>
          <th scope="col">Paid</th>
        </tr>
      </thead>
      <tbody>
        {props.schedule.map((instalment) => (
          <tr key={instalment.dueDate}>
            <td>{longDate(instalment.dueDate)}</td>
            <td>{moneyText(instalment.amount, props.currency)}</td>
            <td>{moneyText(instalment.paid, props.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const TX_WORDS: Record<string, string> = {
  Succeeded: 'Received',
  Pending: 'Processing',
  Failed: 'Failed',
  Refunded: 'Refunded',
  Cancelled: 'Cancelled',
};

function TransactionsSection({ transactions }: { transactions: PortalTransaction[] }) {
  return (
    <section class="card" aria-labelledby="tx-heading">
      <h2 id="tx-heading">Payments and changes</h2>
      {transactions.length === 0 ? (
        <div class="empty">
          <p>None yet. Your payments will be listed here.</p>
        </div>
      ) : (
        <table class="collapse">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">What</th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {transactions.map((t) => (
              <tr>
                <td data-label="Date">{longDate(t.day)}</td>
                <td data-label="What">{`${t.type} ${(TX_WORDS[t.status] ?? t.status).toLowerCase()}`}</td>
                <td data-label="Amount" class="money">
                  {moneyText(t.amount, t.currency)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export const DISPUTE_REASON_MAX_LENGTH = 1000;

export function DisputeBody(props: { csrfToken: string; reason?: string; problem?: string }) {
  return (
    <MessageForm
      action="/portal/dispute"
      csrfToken={props.csrfToken}
      name="reason"
      label="Why do you dispute this debt?"
      rows={5}
      maxLength={DISPUTE_REASON_MAX_LENGTH}
      text={props.reason}
      problem={props.problem}
      button="Send my dispute"
    >
      <p>
        Tell us why you do not agree: for example, the debt is not yours, the amount is wrong, or you have already paid.
        While we look into it we pause payments and will not ask you to pay.
      </p>
    </MessageForm>
  );
}
