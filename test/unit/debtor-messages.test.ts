/**
 * Every debtor email is neutral (docs/notifications.md, docs/portal.md "Threat model"): the same subject whatever the
 * kind, and nothing in it a third party reading the mailbox could learn the debt from — no amount, no currency, no
 * balance, no plan figure, no account reference, not the word "debt" or "collection".
 */
import { expect } from 'chai';
import {
  NOTIFICATION_KINDS,
  renderDebtorMessage,
  type MessageDetails,
  type NotificationKind,
} from '../../core/notifications/debtor-messages';

const facts = {
  creditorName: 'Acme Energy',
  debtorFirstName: 'Ava',
  contact: { email: 'help@acme.example', phone: '1800 000 000' },
  replyTo: 'help@acme.example',
  optOutUrl: 'https://collect.example.test/notifications/opt-out/tok',
};

const details: Record<NotificationKind, MessageDetails> = {
  portal_link: { kind: 'portal_link', portalUrl: 'https://collect.example.test/portal/l/tok' },
  plan_schedule: { kind: 'plan_schedule' },
  instalment_reminder: { kind: 'instalment_reminder', dueDate: '2027-01-15' },
  payment_receipt: { kind: 'payment_receipt', paidAt: '2026-12-01T10:00:00.000Z', reference: 'txn-1' },
  plan_defaulted: { kind: 'plan_defaulted' },
};

describe('debtor email words', () => {
  for (const kind of NOTIFICATION_KINDS) {
    it(`${kind}: the neutral subject, no figure or word that discloses a debt, lines a mail client shows whole`, () => {
      const { subject, text } = renderDebtorMessage(facts, details[kind]);
      expect(subject).to.equal('A message from Acme Energy');
      expect(text).not.to.match(/\bdebts?\b|collection|owing|owe|balance|\d+\.\d{2}|\$|AUD/i);
      expect(text).to.include('Hello Ava,').and.include(facts.optOutUrl).and.include('help@acme.example');
      for (const line of text.split('\n'))
        if (!line.startsWith('https://')) expect(line.length, line).to.be.at.most(76);
    });
  }

  it('says when: the reminder its due date, the receipt its date and number', () => {
    expect(renderDebtorMessage(facts, details.instalment_reminder).text.replace(/\n/g, ' ')).to.include(
      'Friday 15 January 2027',
    );
    const receipt = renderDebtorMessage(facts, details.payment_receipt).text.replace(/\n/g, ' ');
    expect(receipt).to.include('Tuesday 1 December 2026').and.include('Receipt number: txn-1');
  });

  it('invites a reply only when the message has a Reply-To, and never promises one otherwise', () => {
    const noContact = { ...facts, contact: { email: null, phone: null } };
    const withReplyTo = renderDebtorMessage({ ...noContact, replyTo: 'desk@collector.example' }, details.portal_link);
    expect(withReplyTo.text).to.include('Reply to this email and we will get back to you.');
    const noReplyTo = renderDebtorMessage({ ...noContact, replyTo: null }, details.portal_link).text;
    expect(noReplyTo).not.to.match(/reply to this email|get back to you/i);
    expect(noReplyTo.replace(/\n/g, ' ')).to.include('Please contact Acme Energy. Replies to this email are not read.');
  });
});
