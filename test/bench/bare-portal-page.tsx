/**
 * The debtor portal's debt page as its bare ceiling renders it (bare-portal.ts): the layout with the organisation's
 * branding and the collector's footer, the balance, what the debtor can do, the plan's schedule and the payments,
 * rendered by preact-render-to-string in one pass, nothing kept between requests but the formatters. The same markup
 * as ours (web/portal/portal-layout.tsx, web/portal/debt-pages.tsx, core/portal/debtor-actions.ts,
 * core/portal/theme.ts, core/portal/debt-reads.ts's row to debt), written again from preact alone; harness.test.ts
 * holds the two equal, byte for byte, for the same rows.
 */
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { bareMoney } from './bare-console-overview';

/** The debt statement's row (BARE_PORTAL_DEBT_SQL) as `pg` gives it. */
export interface BarePortalDebtRow {
  status: string;
  currency: string;
  original_principal: string;
  outstanding_principal: string;
  external_account_id: string;
  dispute_reason: string | null;
  plan_status: string | null;
  plan_frequency: string | null;
  plan_has_amount: boolean;
  plan_instalment_count: number | null;
  plan_instalments_paid: number | null;
  plan_next_due_date: string | null;
  plan_schedule: { dueDate: string; amount: string; paid: string }[] | null;
}

export interface BarePortalTransaction {
  type: string;
  status: string;
  amount: string;
  currency: string;
  day: string;
}

export interface BareBranding {
  primaryColor: string | null;
  secondaryColor: string | null;
  logoUrl: string | null;
  faviconUrl: string | null;
  brandTagline: string | null;
  supportEmail: string | null;
  supportPhone: string | null;
  statementFooter: string | null;
}

export interface BareCollector {
  name: string;
  email: string;
  phone: string;
  hours: string;
}

/** Copies of ours (core/portal/debtor-actions.ts), asserted equal by harness.test.ts. */
export const BARE_STATUS_WORDS: Record<string, string> = {
  PendingAssignment: 'Waiting for you',
  Accepted: 'You have accepted this debt',
  Active: 'Payment plan running',
  InArrears: 'Payment plan behind',
  Disputed: 'You have disputed this debt',
  Settled: 'Paid in full',
  WrittenOff: 'Written off: nothing more to pay',
  Closed: 'Closed by the creditor',
};
export function bareDebtorActions(status: string) {
  if (['Settled', 'WrittenOff', 'Closed'].includes(status)) {
    return { accept: false, dispute: false, plan: false, pay: false, talk: false };
  }
  return {
    accept: status === 'PendingAssignment',
    dispute: status !== 'Disputed',
    plan: status === 'Accepted' || status === 'InArrears',
    pay: status !== 'Disputed',
    talk: true,
  };
}

// ---- the theme's stylesheet href (core/portal/theme.ts, web/portal/portal-context.tsx): contrast checks
const HEX = /^#?([0-9a-fA-F]{6})$/;
function luminance(hex: string): number {
  const digits = HEX.exec(hex)![1]!;
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(digits.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}
function pick(value: string | null, fallback: string, minimum: number, backgrounds: string[]): string {
  if (!value || !HEX.test(value)) return fallback;
  const colour = `#${HEX.exec(value)![1]!.toLowerCase()}`;
  return backgrounds.every((background) => contrast(colour, background) >= minimum) ? colour : fallback;
}
export function bareThemeHref(branding: BareBranding): string {
  const primary = pick(branding.primaryColor, '#1d4f91', 4.5, ['#ffffff', '#f3f5f8']);
  const secondary = pick(branding.secondaryColor, '#2f6f4e', 3, ['#ffffff']);
  return `/portal/theme.css?p=${primary.slice(1)}&s=${secondary.slice(1)}`;
}

// ---- words and numbers (web/portal/format.ts)
const LONG_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const longDate = (value: string) => LONG_DATE.format(new Date(value.length === 10 ? `${value}T00:00:00Z` : value));
const moneyText = (amount: string, currency: string) => bareMoney(Number(amount), currency);

const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

function Layout(props: {
  title: string;
  stylesheetHref: string;
  themeHref: string;
  creditorName: string;
  branding: BareBranding;
  collector: BareCollector;
  csrfToken: string;
  children: ComponentChildren;
}) {
  const { branding, creditorName, collector } = props;
  const contact = [branding.supportEmail, branding.supportPhone].filter(Boolean) as string[];
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · ${creditorName}`}</title>
        <link rel="stylesheet" href={props.stylesheetHref} />
        <link rel="stylesheet" href={props.themeHref} />
        {branding.faviconUrl && <link rel="icon" href={branding.faviconUrl} />}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="portal-header">
          <div class="portal-header-inner">
            <div class="portal-brand">
              {branding.logoUrl && <img class="portal-logo" src={branding.logoUrl} alt="" />}
              <span class="portal-name">{creditorName}</span>
              {branding.brandTagline && <span class="portal-tagline">{branding.brandTagline}</span>}
            </div>
            <form method="post" action="/portal/sign-out" class="portal-sign-out">
              <Csrf token={props.csrfToken} />
              <button type="submit">Sign out</button>
            </form>
          </div>
        </header>
        <main id="main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
        <footer class="portal-footer">
          {creditorName && (
            <p>
              This account is owed to <strong>{creditorName}</strong>.
              {contact.length > 0 && ` You can also contact ${creditorName}: ${contact.join(' or ')}.`}
            </p>
          )}
          <p>
            {collector.name} looks after this account{creditorName ? ' for them' : ''}. Questions? Email{' '}
            <a href={`mailto:${collector.email}`}>{collector.email}</a> or call{' '}
            <a href={`tel:${collector.phone.replace(/[^\d+]/g, '')}`}>{collector.phone}</a> ({collector.hours}).
          </p>
          {creditorName && branding.statementFooter && <p class="portal-statement">{branding.statementFooter}</p>}
        </footer>
      </body>
    </html>
  );
}

const STATUS_BADGES: Record<string, string> = {
  PendingAssignment: 'badge badge-warning',
  Accepted: 'badge',
  Active: 'badge',
  InArrears: 'badge badge-danger',
  Disputed: 'badge badge-warning',
  Settled: 'badge badge-success',
  WrittenOff: 'badge badge-success',
  Closed: 'badge',
};
const OUTCOMES: Record<string, string> = {
  Settled: 'This debt is paid in full. Thank you. There is nothing more to pay.',
  WrittenOff: 'This debt has been written off. You do not need to pay anything more.',
  Closed: 'The creditor has closed this account with us. We will not ask you for payment on it.',
};
const TX_WORDS: Record<string, string> = {
  Succeeded: 'Received',
  Pending: 'Processing',
  Failed: 'Failed',
  Refunded: 'Refunded',
  Cancelled: 'Cancelled',
};

function DebtBody(props: {
  debt: BarePortalDebtRow;
  transactions: BarePortalTransaction[];
  creditorName: string;
  csrfToken: string;
}) {
  const { debt, transactions } = props;
  const currency = debt.currency;
  const actions = bareDebtorActions(debt.status);
  // No plan without a status, a frequency and an amount; no schedule without a status (core/portal/debt-reads.ts).
  const hasPlan = debt.plan_status !== null && debt.plan_frequency !== null && debt.plan_has_amount;
  const schedule = debt.plan_status ? (debt.plan_schedule ?? []) : [];
  return (
    <>
      <section class="card" aria-labelledby="balance-heading">
        <h2 id="balance-heading">What you owe {props.creditorName}</h2>
        <p class="balance">{moneyText(debt.outstanding_principal, currency)}</p>
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <span class={STATUS_BADGES[debt.status]}>{BARE_STATUS_WORDS[debt.status]}</span>
          </dd>
          <dt>Original amount</dt>
          <dd class="money">{moneyText(debt.original_principal, currency)}</dd>
          <dt>Account reference</dt>
          <dd>{debt.external_account_id}</dd>
        </dl>
      </section>
      {debt.status === 'Disputed' ? (
        <section class="card" aria-labelledby="dispute-heading">
          <h2 id="dispute-heading">Your dispute</h2>
          {debt.dispute_reason && <p class="quote">{debt.dispute_reason}</p>}
          <p>We are looking into it. Payments are paused until then. We will write to you with the outcome.</p>
        </section>
      ) : (
        !actions.talk && (
          <section class="card" aria-labelledby="outcome-heading">
            <h2 id="outcome-heading">Outcome</h2>
            <p>{OUTCOMES[debt.status]}</p>
          </section>
        )
      )}
      {(actions.accept || actions.plan || actions.pay || actions.dispute) && (
        <section class="card" aria-labelledby="actions-heading">
          <h2 id="actions-heading">What you can do</h2>
          {actions.accept && (
            <form method="post" action="/portal/accept" class="stack">
              <Csrf token={props.csrfToken} />
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
      )}
      {schedule.length > 0 && (
        <section class="card" aria-labelledby="plan-heading">
          <h2 id="plan-heading">Your payment plan</h2>
          {hasPlan && (
            <p>
              {debt.plan_frequency} payments, {debt.plan_instalments_paid ?? 0} of {debt.plan_instalment_count ?? 0}{' '}
              paid
              {debt.plan_status !== 'Active' ? ` (plan ${debt.plan_status!.toLowerCase()})` : ''}.
              {debt.plan_next_due_date && debt.plan_status === 'Active'
                ? ` Next payment due ${longDate(debt.plan_next_due_date)}.`
                : ''}
            </p>
          )}
          <table class="schedule">
            <caption>Payment schedule</caption>
            <thead>
              <tr>
                <th scope="col">Due</th>
                <th scope="col">Amount</th>
                <th scope="col">Paid</th>
              </tr>
            </thead>
            <tbody>
              {schedule.map((instalment) => (
                <tr>
                  <td>{longDate(instalment.dueDate)}</td>
                  <td>{moneyText(instalment.amount, currency)}</td>
                  <td>{moneyText(instalment.paid, currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
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

/** A verified visit's debt page ("Your account"), `<!doctype html>` included. */
export function barePortalDebtPage(page: {
  stylesheetHref: string;
  collector: BareCollector;
  csrfToken: string;
  creditorName: string;
  branding: BareBranding;
  debt: BarePortalDebtRow;
  transactions: BarePortalTransaction[];
}): string {
  const title = 'Your account';
  return `<!doctype html>${renderToString(
    <Layout
      title={title}
      stylesheetHref={page.stylesheetHref}
      themeHref={bareThemeHref(page.branding)}
      creditorName={page.creditorName}
      branding={page.branding}
      collector={page.collector}
      csrfToken={page.csrfToken}
    >
      <DebtBody
        debt={page.debt}
        transactions={page.transactions}
        creditorName={page.creditorName}
        csrfToken={page.csrfToken}
      />
    </Layout>,
  )}`;
}
