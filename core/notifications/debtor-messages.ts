/**
 * The words of every debtor email, pure: facts in, subject and plain text out. Plain language,
 * the creditor's name in each, the collector's contact details, and the opt-out link at the foot of every message
 * (US Regulation F asks for a clear way to opt out of electronic messages). No HTML part: plain text reads the same in
 * every mail client and cannot hide a link behind other words.
 */
import { CURRENCY_MINOR_UNITS } from '../debts/currencies';

export const NOTIFICATION_KINDS = [
  'portal_link',
  'plan_schedule',
  'instalment_reminder',
  'payment_receipt',
  'plan_defaulted',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** How many days before an instalment's due date its reminder is sent (docs/notifications.md). */
export const REMINDER_LEAD_DAYS = 3;

export interface MessageFacts {
  creditorName: string;
  debtorFirstName: string;
  /** The creditor's account reference the debtor knows the debt by. */
  accountReference: string;
  currency: string;
  outstanding: string;
  /** The branding's support email and phone, when the creditor set them. */
  contact: { email: string | null; phone: string | null };
  optOutUrl: string;
}

export type MessageDetails =
  | { kind: 'portal_link'; portalUrl: string }
  | { kind: 'plan_schedule'; instalments: { dueDate: string; amount: string }[]; frequency: string }
  | { kind: 'instalment_reminder'; dueDate: string; amountDue: string }
  | { kind: 'payment_receipt'; amount: string; paidAt: string; reference: string }
  | { kind: 'plan_defaulted'; missedDueDate: string | null };

export interface RenderedMessage {
  subject: string;
  text: string;
}

/** `1,250.50 AUD`: the currency's minor units, grouped, the code after. */
export function formatMoney(amount: string, currency: string): string {
  const digits = CURRENCY_MINOR_UNITS.get(currency) ?? 2;
  const format = new Intl.NumberFormat('en-AU', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${format.format(Number(amount))} ${currency}`;
}

/** `Tuesday 15 December 2026` from `2026-12-15`, the calendar date as written (UTC). */
export function formatDate(date: string): string {
  const format = new Intl.DateTimeFormat('en-AU', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return format.format(new Date(`${date.slice(0, 10)}T00:00:00Z`));
}

export function renderDebtorMessage(facts: MessageFacts, details: MessageDetails): RenderedMessage {
  const money = (amount: string) => formatMoney(amount, facts.currency);
  const { subject, lines } = bodyOf(facts, details, money);
  const text = [`Hello ${facts.debtorFirstName},`, '', ...lines, '', ...contactLines(facts), '', ...footer(facts)];
  return { subject, text: `${text.join('\n')}\n` };
}

function bodyOf(
  facts: MessageFacts,
  details: MessageDetails,
  money: (amount: string) => string,
): { subject: string; lines: string[] } {
  const creditor = facts.creditorName;
  const account = `account ${facts.accountReference}`;
  switch (details.kind) {
    case 'portal_link':
      return {
        subject: `Your ${creditor} ${account}`,
        lines: [
          `${creditor} has asked us to contact you about your ${account}. The amount owing is ${money(facts.outstanding)}.`,
          '',
          'You can see the details, and choose what to do next, on this secure page:',
          '',
          details.portalUrl,
          '',
          'The page will ask you to confirm who you are before it shows anything. The link is for you alone:',
          'please do not share it. From there you can accept the debt, set up a payment plan, pay, or tell us',
          'if you think the debt is wrong.',
        ],
      };
    case 'plan_schedule':
      return {
        subject: `Your payment plan with ${creditor} has started`,
        lines: [
          `Thank you. Your ${details.frequency.toLowerCase()} payment plan for ${account} with ${creditor} has started.`,
          `These are the payments you agreed to, ${money(facts.outstanding)} in total:`,
          '',
          ...details.instalments.map((i, n) => `  ${n + 1}. ${formatDate(i.dueDate)}: ${money(i.amount)}`),
          '',
          `We will remind you ${REMINDER_LEAD_DAYS} days before each payment is due.`,
        ],
      };
    case 'instalment_reminder':
      return {
        subject: `Reminder: ${money(details.amountDue)} is due on ${formatDate(details.dueDate)}`,
        lines: [
          `This is a reminder that your next payment to ${creditor} for ${account} is due soon:`,
          '',
          `  ${money(details.amountDue)} on ${formatDate(details.dueDate)}`,
          '',
          'If you have already paid, thank you: you do not need to do anything.',
          'If you cannot pay on time, please contact us before the due date.',
        ],
      };
    case 'payment_receipt':
      return {
        subject: `Receipt: we received your payment of ${money(details.amount)}`,
        lines: [
          `We received your payment to ${creditor} for ${account}. Thank you.`,
          '',
          `  Amount: ${money(details.amount)}`,
          `  Date: ${formatDate(details.paidAt)}`,
          `  Receipt number: ${details.reference}`,
          `  Still owing: ${money(facts.outstanding)}`,
          '',
          'Please keep this email as your receipt.',
        ],
      };
    case 'plan_defaulted':
      return {
        subject: `Your payment plan with ${creditor} has stopped`,
        lines: [
          details.missedDueDate
            ? `The payment due on ${formatDate(details.missedDueDate)} for ${account} was not made within 7 days,`
            : `A payment for ${account} was not made within 7 days of its due date,`,
          `so your payment plan with ${creditor} has stopped. The amount still owing is ${money(facts.outstanding)}.`,
          '',
          'Please contact us as soon as you can. You can also use the link we sent you to set up a new plan or pay.',
        ],
      };
  }
}

function contactLines(facts: MessageFacts): string[] {
  const ways = [
    facts.contact.email && `email ${facts.contact.email}`,
    facts.contact.phone && `call ${facts.contact.phone}`,
  ]
    .filter(Boolean)
    .join(' or ');
  return ways ? [`Questions? Please ${ways}.`] : ['Questions? Reply to this email and we will get back to you.'];
}

function footer(facts: MessageFacts): string[] {
  return [
    '--',
    `This email is about a debt owed to ${facts.creditorName}.`,
    'To stop receiving emails from us, open this link and confirm:',
    facts.optOutUrl,
  ];
}
