/**
 * The mail dispatcher (core/notifications/mail-dispatcher.ts) against real PostgreSQL and a real SMTP sink (maildev):
 * a tenant with one new notification is mailed in the first round, not behind another tenant's backlog; two
 * dispatchers (two worker processes) over the same backlog mail each notification once; a claim a dead process left is
 * taken again once it expires; and a debtor email's Reply-To is the creditor's support address, else the
 * collector's, with a text that invites a reply only when there is one.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { updateBranding } from '../../core/branding/branding';
import { createDebt } from '../../core/debts/debt-creation';
import {
  CLAIM_EXPIRY_MS,
  notificationsOfDebt,
  recordNotifications,
} from '../../core/notifications/debtor-notifications';
import { createMailer, type Mailer, type MailMessage } from '../../core/notifications/mail';
import { createMailDispatcher, type MailDispatcher } from '../../core/notifications/mail-dispatcher';
import { createLogger } from '../../core/platform/logger';
import { inlineDebtBody } from '../support/debt-api';
import { startMailSink, type MailSink, type ReceivedMail } from '../support/mail-sink';
import { testDb } from '../support/resources';
import { testSecretBox } from '../support/secret-box';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

const PUBLIC_URL = 'https://collect.example.test';
const logger = createLogger({ level: 'silent', name: 'mail-dispatcher-test' });

interface Raised {
  organizationId: string;
  debtIds: string[];
  emails: string[];
}

describe('debtor mail dispatcher', function () {
  this.timeout(120_000);
  let sink: MailSink;
  let mailer: Mailer;
  const dispatchers: MailDispatcher[] = [];

  before(async () => {
    sink = await startMailSink();
    mailer = createMailer({
      smtpUrl: sink.smtpUrl,
      from: 'Account notifications <notifications@collect.example.test>',
      pool: { maxConnections: 2, maxMessagesPerSecond: 0 },
    });
  });
  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
  });
  after(async () => {
    mailer?.close();
    await sink?.stop();
  });

  /** Sends through the pooled mailer, noting each recipient as its send starts. */
  function noting(order: string[]): Mailer {
    return {
      async send(message: MailMessage) {
        order.push(message.to);
        await mailer.send(message);
      },
      close() {},
    };
  }

  function dispatcher(m: Mailer, sendsInFlight: number, replyTo?: string): MailDispatcher {
    const d = createMailDispatcher({
      db: testDb(),
      mode: 'production',
      publicBaseUrl: PUBLIC_URL,
      mailer: m,
      secretBox: testSecretBox(),
      logger,
      sendsInFlight,
      ...(replyTo ? { replyTo } : {}),
    });
    dispatchers.push(d);
    return d;
  }

  /**
   * A tenant (or more debts of one) with `count` debts, each with its portal-link notification recorded (as the outbox
   * consumer does), as bulk work (a placement's) when asked.
   */
  async function raise(
    count: number,
    name: string,
    options: { bulk?: boolean; organizationId?: string } = {},
  ): Promise<Raised> {
    const organization = options.organizationId
      ? { id: options.organizationId }
      : (await createTestTenant({ mode: 'production', name })).organization;
    const raised: Raised = { organizationId: organization.id, debtIds: [], emails: [] };
    for (let i = 0; i < count; i++) {
      const body = inlineDebtBody({ originalPrincipal: '100.00', debtorEmail: `d.${randomUUID()}@example.com` });
      const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, body));
      raised.debtIds.push(debt.id);
      raised.emails.push(body.debtorEmail as string);
    }
    await recordNotifications(
      testDb(),
      raised.debtIds.map((debtId) => ({
        organizationId: organization.id,
        debtId,
        kind: 'portal_link' as const,
        sourceId: randomUUID(),
        bulk: options.bulk ?? false,
      })),
    );
    return raised;
  }

  /** Other tenants' notifications due now (left by other tests in this database): each takes a place per round. */
  async function otherTenantsWithDueMail(exclude: string[]): Promise<number> {
    const row = await testDb()('debtor_notifications as n')
      .join('organizations as o', 'o.id', 'n.organization_id')
      .where({ 'o.mode': 'production', 'n.status': 'pending' })
      .whereNotIn('n.organization_id', exclude)
      .countDistinct<{ count: string }[]>('n.organization_id as count')
      .first();
    return Number(row?.count ?? 0);
  }

  async function settled(raised: Raised): Promise<void> {
    await waitFor(
      async () => {
        const rows = await testDb()('debtor_notifications')
          .where({ organization_id: raised.organizationId })
          .whereIn('status', ['pending', 'sending'])
          .count<{ count: string }[]>('* as count');
        return Number(rows[0]?.count) === 0;
      },
      { what: 'every notification of the tenant handled' },
    );
  }

  it('a tenant with one new notification is mailed in the first round, not behind another tenant’s backlog', async () => {
    const busy = await raise(30, 'Bulk Energy');
    const quiet = await raise(1, 'Corner Plumbing'); // recorded after all 30 of the busy tenant's
    const others = await otherTenantsWithDueMail([busy.organizationId, quiet.organizationId]);
    const order: string[] = [];
    const lanes = 2;
    const d = dispatcher(noting(order), lanes);
    d.wake();
    await settled(busy);
    await settled(quiet);

    const quietAt = order.indexOf(quiet.emails[0]!);
    expect(quietAt, 'the quiet tenant’s mail was sent').to.be.at.least(0);
    const busyBefore = order.slice(0, quietAt).filter((to) => busy.emails.includes(to)).length;
    // Each claim takes every tenant's oldest (round 1) before anyone's second: the busy tenant gets one place per claim
    // until the quiet tenant's is taken, and that takes at most ceil(tenants / lanes) claims. First in, first out
    // would have sent all 30 first.
    expect(busyBefore).to.be.at.most(Math.ceil((others + 2) / lanes));
    expect(busy.emails.filter((e) => order.includes(e))).to.have.length(30);
    const mail = await sink.nthMailTo(quiet.emails[0]!, 1);
    expect(mail.subject).to.equal('A message from Corner Plumbing');
  });

  it('a tenant’s own mail for a debt raised through the API goes before its placement’s older bulk mail', async () => {
    const placed = await raise(12, 'Placing Energy', { bulk: true });
    const [single] = (await raise(1, '', { organizationId: placed.organizationId })).emails;
    const order: string[] = [];
    const d = dispatcher(noting(order), 1);
    d.wake();
    await settled(placed);
    const ours = order.filter((to) => to === single || placed.emails.includes(to));
    // One lane, one claim per send: the tenant's first turn is its debt raised otherwise, then its placement's.
    // First in, first out would have sent it last.
    expect(ours[0]).to.equal(single);
    expect(ours.slice(1)).to.have.members(placed.emails);
  });

  it('two dispatchers over one backlog mail each notification once', async () => {
    const backlog = await raise(20, 'Twice Energy');
    const order: string[] = [];
    const [first, second] = [dispatcher(noting(order), 3), dispatcher(noting(order), 3)];
    first.wake();
    second.wake();
    await settled(backlog);
    await Promise.all([first.idle(), second.idle()]);
    expect([...order].filter((to) => backlog.emails.includes(to)).sort()).to.deep.equal([...backlog.emails].sort());
    for (const email of backlog.emails) {
      await sink.nthMailTo(email, 1);
      expect(await sink.mailTo(email), email).to.have.length(1);
    }
    for (const debtId of backlog.debtIds) {
      const [row] = await notificationsOfDebt(testDb(), backlog.organizationId, debtId);
      expect(row).to.include({ status: 'sent', attempts: 1 });
    }
  });

  it('a claim left by a process that died is taken again once it expires, and sent once', async () => {
    const left = await raise(1, 'Crashed Energy');
    const [row] = await notificationsOfDebt(testDb(), left.organizationId, left.debtIds[0]!);
    // As a dispatcher killed mid-send leaves it: claimed, attempt counted, never finished.
    await testDb()('debtor_notifications')
      .where({ id: row!.id })
      .update({ status: 'sending', attempts: 1, claimed_at: new Date(Date.now() - CLAIM_EXPIRY_MS + 60_000) });
    const d = dispatcher(mailer, 2);
    d.wake();
    await d.idle();
    expect((await notificationsOfDebt(testDb(), left.organizationId, left.debtIds[0]!))[0]).to.include({
      status: 'sending',
    });
    await testDb()('debtor_notifications')
      .where({ id: row!.id })
      .update({ claimed_at: new Date(Date.now() - CLAIM_EXPIRY_MS - 1_000) });
    d.wake();
    await settled(left);
    expect((await notificationsOfDebt(testDb(), left.organizationId, left.debtIds[0]!))[0]).to.include({
      status: 'sent',
      attempts: 2,
    });
    await sink.nthMailTo(left.emails[0]!, 1);
    expect(await sink.mailTo(left.emails[0]!)).to.have.length(1);
  });

  describe('Reply-To', () => {
    const replyToOf = (mail: ReceivedMail) => sink.headerOf(mail, 'Reply-To');
    const oneLine = (text: string) => text.replace(/\n/g, ' ');

    it('is the creditor’s support address when its branding has one', async () => {
      const raised = await raise(1, 'Branded Energy');
      await updateBranding(testDb(), raised.organizationId, { supportEmail: 'help@branded.example' });
      dispatcher(mailer, 1, 'desk@collector.example').wake();
      const mail = await sink.nthMailTo(raised.emails[0]!, 1);
      expect(await replyToOf(mail)).to.equal('help@branded.example');
      expect(oneLine(mail.text)).to.include('Questions? Please email help@branded.example.');
    });

    it('is the collector’s address otherwise, and the email invites a reply', async () => {
      const raised = await raise(1, 'Plain Energy');
      dispatcher(mailer, 1, 'desk@collector.example').wake();
      const mail = await sink.nthMailTo(raised.emails[0]!, 1);
      expect(await replyToOf(mail)).to.equal('desk@collector.example');
      expect(oneLine(mail.text)).to.include('Reply to this email and we will get back to you.');
    });

    it('is absent with neither, and the email promises no reply', async () => {
      const raised = await raise(1, 'Quiet Energy');
      dispatcher(mailer, 1).wake();
      const mail = await sink.nthMailTo(raised.emails[0]!, 1);
      expect(await replyToOf(mail)).to.equal(null);
      expect(mail.text).not.to.match(/reply to this email|get back to you/i);
      expect(oneLine(mail.text)).to.include('Please contact Quiet Energy. Replies to this email are not read.');
    });
  });
});
