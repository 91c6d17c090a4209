/**
 * The words of every debtor email, pure: facts in, subject and plain text out (docs/notifications.md).
 *
 * Every email is neutral (docs/portal.md, "Threat model"): whoever opens it — the debtor, or anyone else who reads
 * that mailbox — learns only that the creditor wants to reach the addressee. No amount, no balance, no account
 * reference, no plan figures: those are behind the portal's second factor, and a debt must not be disclosed to a third
 * party. Each says what happened and what the debtor can do, with the portal link in the one email that carries it,
 * the collector's contact details, and the opt-out link at the foot (US Regulation F asks for a clear way to opt out
 * of electronic messages). No HTML part: plain text reads the same in every mail client and cannot hide a link behind
 * other words.
 */
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
  /** The branding's support email and phone, when the creditor set them. */
  contact: { email: string | null; phone: string | null };
  /** The message's `Reply-To`: the support email, else the collector's address; null when a reply reaches nobody. */
  replyTo: string | null;
  optOutUrl: string;
}

/** What each kind says beyond the facts: dates and a receipt number, never an amount. */
export type MessageDetails =
  | { kind: 'portal_link'; portalUrl: string }
  | { kind: 'plan_schedule' }
  | { kind: 'instalment_reminder'; dueDate: string }
  | { kind: 'payment_receipt'; paidAt: string; reference: string }
  | { kind: 'plan_defaulted' };

export interface RenderedMessage {
  subject: string;
  text: string;
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
  const text = wrapLines([
    `Hello ${facts.debtorFirstName},`,
    '',
    ...bodyOf(facts.creditorName, details),
    '',
    ...contactLines(facts),
    '',
    ...footer(facts),
  ]);
  // One subject for every kind: it is what a mailbox list shows to anyone who looks.
  return { subject: `A message from ${facts.creditorName}`, text: `${text.join('\n')}\n` };
}

/** Where the details are: the portal, by the link in the portal email, or a new link from us. */
const onSecurePage = (what: string) =>
  `${what} on your secure page: open the link in our first email (if you no longer have it, contact us and we ` +
  'will send a new one).';

/** Paragraphs; '' between them. Wrapped for the mail by `wrapLines`. */
function bodyOf(creditor: string, details: MessageDetails): string[] {
  switch (details.kind) {
    case 'portal_link':
      return [
        `${creditor} has asked us to get in touch with you. Please read their message, and choose what to do next, ` +
          'on this secure page:',
        '',
        details.portalUrl,
        '',
        'The page will ask you to confirm who you are before it shows anything. The link is for you alone: please ' +
          'do not share it.',
      ];
    case 'plan_schedule':
      return [
        `Thank you: the payment arrangement you set up with ${creditor} has started. ` +
          onSecurePage('Its dates and amounts are'),
        '',
        `We will remind you ${REMINDER_LEAD_DAYS} days before each payment is due.`,
      ];
    case 'instalment_reminder':
      return [
        `This is a reminder that your next payment under your arrangement with ${creditor} is due on ` +
          `${formatDate(details.dueDate)}. ${onSecurePage('The amount is')}`,
        '',
        'If you have already paid, thank you: you do not need to do anything. If you cannot pay on time, please ' +
          'contact us before the due date.',
      ];
    case 'payment_receipt':
      return [
        `Thank you: we received a payment to ${creditor} on ${formatDate(details.paidAt)}.`,
        `Receipt number: ${details.reference}`,
        '',
        onSecurePage('The amount, and what is left to pay, are'),
      ];
    case 'plan_defaulted':
      return [
        `The payment arrangement you set up with ${creditor} has stopped, because a payment was not made within 7 ` +
          'days of its due date. Please contact us as soon as you can. ' +
          onSecurePage('You can also set up a new arrangement or pay'),
      ];
  }
}

/** Plain-text mail lines of at most 76 characters, broken between words; a link stays whole on its line. */
export function wrapLines(paragraphs: string[], width = 76): string[] {
  return paragraphs.flatMap((paragraph) => {
    if (/^https?:\/\//.test(paragraph)) return [paragraph]; // a link on its own line, whole (the sandbox's has spaces)
    const lines: string[] = [];
    let line = '';
    for (const word of paragraph.split(' ')) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    return [...lines, line];
  });
}

function contactLines(facts: MessageFacts): string[] {
  const ways = [
    facts.contact.email && `email ${facts.contact.email}`,
    facts.contact.phone && `call ${facts.contact.phone}`,
  ]
    .filter(Boolean)
    .join(' or ');
  if (ways) return [`Questions? Please ${ways}.`];
  // Only a message with a Reply-To invites a reply: one sent from a no-reply `From` must not promise an answer.
  return facts.replyTo
    ? ['Questions? Reply to this email and we will get back to you.']
    : [`Questions? Please contact ${facts.creditorName}. Replies to this email are not read.`];
}

function footer(facts: MessageFacts): string[] {
  return [
    '--',
    `You are receiving this email because ${facts.creditorName} gave us this address to contact you. To stop ` +
      'receiving emails from us, open this link and confirm:',
    facts.optOutUrl,
  ];
}
