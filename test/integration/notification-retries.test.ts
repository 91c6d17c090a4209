/**
 * A debtor email tried again (the relay failed, or answered too late, after it may have delivered): every attempt
 * mails the same opt-out link and the same portal link, so the copy that did arrive keeps working; a reminder tried
 * again after its instalment was paid is not sent; and a relay that goes quiet fails the attempt within the SMTP
 * timeouts, well inside the claim a sender holds (so no second sender mails it meanwhile). Real PostgreSQL, a real
 * SMTP sink (maildev) and a real silent TCP relay.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';
import { recordEvent } from '../../core/events/outbox';
import { CLAIM_EXPIRY_MS, getNotification, recordNotifications } from '../../core/notifications/debtor-notifications';
import { createMailer, SMTP_TIMEOUTS_MS, type Mailer, type MailMessage } from '../../core/notifications/mail';
import { deliverNotification, type NotificationSenderDeps } from '../../core/notifications/notification-sender';
import { resolveOptOutToken } from '../../core/notifications/opt-out-links';
import { resolvePortalLink } from '../../core/portal/links';
import { inlineDebtBody } from '../support/debt-api';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { testDb } from '../support/resources';
import { testSecretBox } from '../support/secret-box';
import { createTestTenant } from '../support/tenants';

const PUBLIC_URL = 'https://collect.example.test';
const PORTAL_TOKEN = /\/portal\/l\/([A-Za-z0-9_-]{43})/;
const OPT_OUT_TOKEN = /\/notifications\/opt-out\/([A-Za-z0-9_-]{43})/;

describe('debtor notifications tried again', function () {
  this.timeout(60_000);
  let sink: MailSink;
  let mailer: Mailer;
  const secretBox = testSecretBox();

  before(async () => {
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Debt recovery <notifications@collect.example.test>' });
  });
  after(async () => {
    mailer?.close();
    await sink?.stop();
  });

  /** A relay that delivers the first `lost` messages but answers the sender with a failure, as a timeout would. */
  function deliversThenFails(lost: number): Mailer {
    let sent = 0;
    return {
      async send(message: MailMessage) {
        await mailer.send(message);
        if (++sent <= lost) throw Object.assign(new Error('socket timeout after DATA'), { code: 'ETIMEDOUT' });
      },
      close() {},
    };
  }

  const deps = (m: Mailer): NotificationSenderDeps => ({
    db: testDb(),
    mode: 'production',
    publicBaseUrl: PUBLIC_URL,
    mailer: m,
    secretBox,
  });

  async function raise() {
    const { organization } = await createTestTenant({ mode: 'production', name: 'Acme Energy' });
    const body = inlineDebtBody({ originalPrincipal: '900.00', debtorEmail: `d.${randomUUID()}@example.com` });
    const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, body));
    return { organizationId: organization.id, debtId: debt.id, email: body.debtorEmail as string };
  }

  it('a portal-link email sent again carries the same portal link and opt-out link, and both still work', async () => {
    const { organizationId, debtId, email } = await raise();
    const [id] = await recordNotifications(testDb(), [
      { organizationId, debtId, kind: 'portal_link', sourceId: randomUUID() },
    ]);
    const relay = deliversThenFails(1);
    expect(await deliverNotification(deps(relay), id!)).to.equal('retry');
    expect(await deliverNotification(deps(relay), id!)).to.equal('sent');

    const [first, second] = [await sink.nthMailTo(email, 1), await sink.nthMailTo(email, 2)];
    expect(PORTAL_TOKEN.exec(second.text)?.[1]).to.equal(PORTAL_TOKEN.exec(first.text)?.[1]);
    expect(OPT_OUT_TOKEN.exec(second.text)?.[1]).to.equal(OPT_OUT_TOKEN.exec(first.text)?.[1]);
    // The mail that arrived first opens the portal and opts out: nothing it carries was replaced.
    expect(await resolvePortalLink(testDb(), PORTAL_TOKEN.exec(first.text)![1]!)).to.deep.include({ debtId });
    expect(await resolveOptOutToken(testDb(), OPT_OUT_TOKEN.exec(first.text)![1]!)).to.include({ organizationId });
    // Handled: the sealed secrets are gone from the row; only the opt-out token's hash stays.
    const row = await testDb()('debtor_notifications').where({ id }).first<Record<string, unknown>>();
    expect(row).to.include({ secret_ciphertext: null, secret_iv: null, secret_tag: null, secret_key_id: null });
    expect(row.opt_out_token_hash).to.be.a('string');
  });

  it('a reminder tried again after its instalment was paid is suppressed, not sent', async () => {
    const { organizationId, debtId, email } = await raise();
    const schedule = [
      { dueDate: '2027-01-15', amount: '300.0000', paid: '0' },
      { dueDate: '2027-02-15', amount: '600.0000', paid: '0' },
    ];
    await testDb()('debts')
      .where({ id: debtId })
      .update({
        status: 'Active',
        plan_status: 'Active',
        plan_instalment_amount: '300.0000',
        plan_frequency: 'Monthly',
        plan_instalment_count: 2,
        plan_instalments_paid: 0,
        plan_schedule: JSON.stringify(schedule),
      });
    const plan = await testDb().transaction((trx) =>
      recordEvent(trx, organizationId, 'plan.activated', { debt: { id: debtId } }),
    );
    const [id] = await recordNotifications(testDb(), [
      { organizationId, debtId, kind: 'instalment_reminder', sourceId: plan.id, instalmentIndex: 0 },
    ]);
    const failing: Mailer = {
      send: async () => {
        throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      },
      close() {},
    };
    expect(await deliverNotification(deps(failing), id!)).to.equal('retry');

    schedule[0]!.paid = '300.0000'; // paid before the retry
    await testDb()('debts')
      .where({ id: debtId })
      .update({ plan_schedule: JSON.stringify(schedule) });
    expect(await deliverNotification(deps(mailer), id!)).to.equal('suppressed');
    expect(await getNotification(testDb(), organizationId, id!)).to.include({ status: 'suppressed', reason: 'paid' });
    expect(await sink.mailTo(email)).to.have.length(0);
  });

  describe('a relay that greets and then says nothing', () => {
    let silent: Server;
    const sockets: Socket[] = [];
    before(async () => {
      // Greets, then never answers a command: nodemailer's own idle limit would wait an hour.
      silent = createServer((socket) => {
        sockets.push(socket);
        socket.write('220 relay.example.test ESMTP\r\n');
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('fails the send with a timeout, not an hour later: every SMTP limit together stays well inside the claim', async () => {
      const limits = SMTP_TIMEOUTS_MS.dns + SMTP_TIMEOUTS_MS.connection + SMTP_TIMEOUTS_MS.greeting;
      expect(limits + 3 * SMTP_TIMEOUTS_MS.socket).to.be.below(CLAIM_EXPIRY_MS / 2);
      const { port } = silent.address() as AddressInfo;
      const quiet = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'x <x@collect.example.test>' });
      try {
        const failure = await quiet.send({ to: 'someone@example.com', subject: 's', text: 't' }).then(
          () => null,
          (err: unknown) => err as { code?: string; message?: string },
        );
        expect(failure?.code).to.equal('ETIMEDOUT');
        expect(failure?.message).to.match(/timeout/i);
      } finally {
        quiet.close();
      }
    });
  });
});
