/**
 * Debtor notifications end to end on the real parts: PostgreSQL and its outbox relay with the notifications consumer,
 * the lifecycle and reminder workflows on Temporal's time-skipping server (real durations), and a real SMTP sink.
 * Raising a debt mails a working portal link; an opted-out debtor or one without email gets nothing, recorded as
 * suppressed; an event handed over twice mails once; a plan's start mails its schedule, a reminder arrives
 * REMINDER_LEAD_DAYS before each instalment and not before, a payment gets a receipt, a default a notice; the sandbox
 * records each message and mails nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { createDebtorNotificationActivities } from '../../activities/debtor-notifications';
import { createDebt } from '../../core/debts/debt-creation';
import { advanceCursor, readCursor } from '../../core/events/cursor';
import { startOutboxRelay, type OutboxRelay } from '../../core/events/relay';
import { setEmailOptOut } from '../../core/notifications/contact-preferences';
import { REMINDER_LEAD_DAYS } from '../../core/notifications/debtor-messages';
import { notificationsOfDebt, type NotificationRow } from '../../core/notifications/debtor-notifications';
import { reminderTime } from '../../core/notifications/instalment-reminders';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import {
  createNotificationsConsumer,
  DEBTOR_NOTIFICATIONS_CONSUMER,
} from '../../core/notifications/notifications-consumer';
import { SANDBOX_PLACEHOLDERS } from '../../core/notifications/notification-sender';
import type { Mode } from '../../core/platform/mode';
import { createLogger } from '../../core/platform/logger';
import { resolvePortalLink } from '../../core/portal/links';
import { TASK_QUEUES, workflowIds } from '../../core/temporal/names';
import { debtLifecycleWorkflow } from '../../workflows/debt-lifecycle';
import { acceptUpdate, agreePlanUpdate, reportPaymentUpdate } from '../../workflows/lifecycle/messages';
import { inlineDebtBody } from '../support/debt-api';
import { raiseEvent } from '../support/webhooks';
import { recordEvent } from '../../core/events/outbox';
import { historyToJson } from '../support/history-json';
import { testEnv } from '../support/env';
import { planScheduleOf } from '../support/lifecycle';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { consumersSkipBacklog } from '../support/outbox-cursors';
import { testDb } from '../support/resources';
import { bundleWorkflows, startTimeSkipping, uniqueTaskQueue } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { testSecretBox } from '../support/secret-box';

const REMINDER_HISTORIES_DIR = join(__dirname, '..', 'workflows', 'histories', 'instalment-reminders');
const DAY = 86_400_000;
const HOUR = 3_600_000;
const FROM_ADDRESS = 'notifications@collect.example.test';
const PUBLIC_URLS: Record<Mode, string> = {
  production: 'https://collect.example.test',
  sandbox: 'https://sandbox.collect.example.test',
};
const logger = createLogger({ level: 'silent', name: 'notifications-test' });
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const endOf = (date: string) => Date.parse(`${date}T00:00:00.000Z`) + DAY;

/** Every string and payload (decoded from its bytes) in a workflow history, as one text to search. */
function readableHistory(history: unknown): string {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('utf8'));
    else if (typeof value === 'string') parts.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(history);
  return parts.join('\n');
}

/** No amount (of any instalment, payment or balance), no currency and no account reference, subject or body. */
function expectNeutral(mail: { subject: string; text: string }, accountReference: string) {
  const whole = `${mail.subject}\n${mail.text}`;
  expect(whole, whole).not.to.include(accountReference);
  expect(whole, whole).not.to.match(/\bAUD\b|\d+\.\d{2}\b|\$/);
}

describe('debtor notifications (outbox consumer, reminder workflow, SMTP sink)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let sink: MailSink;
  let mailer: Mailer;
  const workers: Worker[] = [];
  const runs: Promise<void>[] = [];
  const relays: OutboxRelay[] = [];
  const taskQueues: Record<Mode, string> = {
    production: uniqueTaskQueue(TASK_QUEUES.lifecycle),
    sandbox: uniqueTaskQueue(TASK_QUEUES.lifecycle),
  };

  before(async () => {
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: `Debt recovery <${FROM_ADDRESS}>` });
    env = await startTimeSkipping();
    const workflowBundle = await bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle'));
    for (const mode of ['production', 'sandbox'] as const) {
      const deps = { db: testDb(), mode, publicBaseUrl: PUBLIC_URLS[mode], mailer, secretBox: testSecretBox(), logger };
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue: taskQueues[mode],
        workflowBundle,
        activities: { ...createDebtLifecycleActivities({ db: testDb() }), ...createDebtorNotificationActivities(deps) },
      });
      workers.push(worker);
      runs.push(worker.run());
      await consumersSkipBacklog([DEBTOR_NOTIFICATIONS_CONSUMER], mode);
      const consumer = createNotificationsConsumer({ ...deps, client: env.client, taskQueue: taskQueues[mode] });
      relays.push(
        startOutboxRelay({ mode, db: testDb(), databaseUrl: testEnv.databaseUrl, logger, consumers: [consumer] }),
      );
    }
  });
  after(async () => {
    await Promise.allSettled(relays.map((r) => r.stop()));
    for (const worker of workers) worker.shutdown();
    await Promise.allSettled(runs);
    await env?.teardown();
    mailer?.close();
    await sink?.stop();
  });

  async function raise(mode: Mode, overrides: Record<string, unknown> = {}) {
    const tenant = await createTestTenant({ mode, name: 'Acme Energy' });
    const organizationId = tenant.organization.id;
    const body = inlineDebtBody({ originalPrincipal: '900.00', ...overrides });
    const debt = await testDb().transaction((trx) => createDebt(trx, organizationId, body));
    return { organizationId, debt, email: body.debtorEmail as string };
  }

  async function notificationsSettled(organizationId: string, debtId: string, count: number) {
    let rows: NotificationRow[] = [];
    await waitFor(
      async () => {
        rows = await notificationsOfDebt(testDb(), organizationId, debtId);
        return rows.length >= count && rows.every((r) => !['pending', 'sending'].includes(r.status));
      },
      { what: `${count} handled notification(s) of debt ${debtId}` },
    );
    return rows;
  }

  it('an event whose debt is not there (malformed id, wiped) notifies nobody and does not stall the ones after it', async () => {
    const tenant = await createTestTenant({ mode: 'production', name: 'Acme Energy' });
    await raiseEvent(tenant.organization.id); // names a debt id that is no uuid
    await testDb().transaction((trx) =>
      recordEvent(trx, tenant.organization.id, 'debt.created', { debt: { id: randomUUID() } }),
    );
    const { email } = await raise('production');
    const mail = await sink.nthMailTo(email, 1);
    expect(mail.text).to.match(/\/portal\/l\/[A-Za-z0-9_-]{43}/);
    const recorded = await testDb()('debtor_notifications').where({ organization_id: tenant.organization.id });
    expect(recorded).to.have.length(0);
  });

  it('raising a debt mails the debtor a portal link whose token opens that debt, from the notifications address', async () => {
    const { organizationId, debt, email } = await raise('production');
    const mail = await sink.nthMailTo(email, 1);
    expect(mail.from[0]?.address).to.equal(FROM_ADDRESS);
    expect(mail.subject).to.equal('A message from Acme Energy');
    expect(mail.text).to.include('Hello Ava,');
    expect(mail.text.replace(/\n/g, ' ')).to.include('Acme Energy has asked us to get in touch with you');
    // Neutral: whoever reads the mailbox learns neither the debt nor the account reference the portal could ask for.
    expectNeutral(mail, debt.externalAccountId);
    const token = /\/portal\/l\/([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
    expect(token, mail.text).to.be.a('string');
    expect(await resolvePortalLink(testDb(), token!)).to.deep.include({ organizationId, debtId: debt.id });
    expect(mail.text).to.match(/\/notifications\/opt-out\/[A-Za-z0-9_-]{43}\n/);
    const [row] = await notificationsSettled(organizationId, debt.id, 1);
    expect(row).to.deep.include({ kind: 'portal_link', status: 'sent', body: null, subject: null });
  });

  it('an opted-out debtor is sent nothing, and the record says suppressed; so is a debtor without email', async () => {
    const first = await raise('production');
    await sink.nthMailTo(first.email, 1);
    await setEmailOptOut(testDb(), {
      organizationId: first.organizationId,
      debtorId: first.debt.debtorId,
      optedOut: true,
    });
    // A second debt for the same debtor (the same reference): its portal link is not mailed.
    const body = inlineDebtBody({ debtorId: first.debt.debtorId });
    for (const key of ['debtorReferenceId', 'debtorFirstName', 'debtorLastName', 'debtorEmail']) delete body[key];
    const second = await testDb().transaction((trx) => createDebt(trx, first.organizationId, body));
    const [suppressed] = await notificationsSettled(first.organizationId, second.id, 1);
    expect(suppressed).to.deep.include({ status: 'suppressed', reason: 'opted_out' });

    const phoneOnly = await raise('production', { debtorEmail: undefined, debtorPhone: '+61400000000' });
    const [noEmail] = await notificationsSettled(phoneOnly.organizationId, phoneOnly.debt.id, 1);
    expect(noEmail).to.deep.include({ status: 'suppressed', reason: 'no_email' });
    expect(await sink.mailTo(first.email)).to.have.length(1);
  });

  it('an event handed to the consumer again sends nothing twice', async () => {
    const before = await readCursor(testDb(), DEBTOR_NOTIFICATIONS_CONSUMER, 'production');
    const replayed = await raise('production');
    await sink.nthMailTo(replayed.email, 1);
    await notificationsSettled(replayed.organizationId, replayed.debt.id, 1);
    // Back to before the event, as a relay whose commit was lost would find it.
    await testDb().transaction((trx) => advanceCursor(trx, DEBTOR_NOTIFICATIONS_CONSUMER, 'production', before!));
    // Events are taken in order: once a later debt's mail is out, the replayed event has been taken again.
    const later = await raise('production');
    await sink.nthMailTo(later.email, 1);
    expect(await sink.mailTo(replayed.email)).to.have.length(1);
    expect(await notificationsOfDebt(testDb(), replayed.organizationId, replayed.debt.id)).to.have.length(1);
  });

  describe('a plan: schedule, reminders, receipt, default', () => {
    async function skipTo(at: number): Promise<void> {
      const now = await env.currentTimeMs();
      if (at > now) await env.sleep(at - now);
    }

    it(`mails the schedule, a reminder ${REMINDER_LEAD_DAYS} days before each instalment (not before), a receipt, and the default notice`, async () => {
      const { organizationId, debt, email } = await raise('production');
      await sink.nthMailTo(email, 1);
      const handle: WorkflowHandle<typeof debtLifecycleWorkflow> = await env.client.workflow.start(
        debtLifecycleWorkflow,
        {
          taskQueue: taskQueues.production,
          workflowId: workflowIds.debt(debt.id),
          args: [{ debtId: debt.id, organizationId, sandbox: false }],
        },
      );
      await handle.executeUpdate(acceptUpdate);
      const firstDueDate = dateOf((await env.currentTimeMs()) + 10 * DAY);
      await handle.executeUpdate(agreePlanUpdate, {
        args: [{ instalmentCount: 3, frequency: 'Monthly', firstDueDate }],
      });
      const schedule = await planScheduleOf(debt.id);

      const scheduleMail = await sink.nthMailTo(email, 2);
      expect(scheduleMail.subject).to.equal('A message from Acme Energy');
      expect(scheduleMail.text.replace(/\n/g, ' ')).to.include(
        'the payment arrangement you set up with Acme Energy has started',
      );
      expect(scheduleMail.text).to.include('/notifications/opt-out/');

      // The first reminder: not an hour before its time, there a minute after.
      const firstReminder = reminderTime(schedule[0]!.dueDate);
      expect(endOf(schedule[0]!.dueDate) - firstReminder).to.equal((REMINDER_LEAD_DAYS + 1) * DAY);
      const planEvent = (await notificationsOfDebt(testDb(), organizationId, debt.id)).find(
        (n) => n.kind === 'plan_schedule',
      )!.source_id;
      const reminders = env.client.workflow.getHandle(workflowIds.instalmentReminders(planEvent));
      await waitFor(
        async () => {
          const events = (await reminders.fetchHistory().catch(() => undefined))?.events ?? [];
          return events.some((e) => e.timerStartedEventAttributes);
        },
        { what: 'the reminder workflow to wait for its first reminder' },
      );
      await skipTo(firstReminder - HOUR);
      expect((await reminders.describe()).status.name).to.equal('RUNNING');
      expect(await sink.mailTo(email)).to.have.length(2);
      await skipTo(firstReminder + 60_000);
      const reminder = await sink.nthMailTo(email, 3);
      expect(reminder.subject).to.equal('A message from Acme Energy');
      expect(reminder.text.replace(/\n/g, ' ')).to.include(
        'your next payment under your arrangement with Acme Energy is due on',
      );

      await handle.executeUpdate(reportPaymentUpdate, {
        args: [{ amount: '300', processorReference: `pay-${debt.id}-1`, succeeded: true }],
      });
      const receipt = await sink.nthMailTo(email, 4);
      expect(receipt.subject).to.equal('A message from Acme Energy');
      expect(receipt.text.replace(/\n/g, ' ')).to.include('we received a payment to Acme Energy on');

      // The second instalment is reminded, then missed: its grace period ends and the plan defaults.
      await skipTo(reminderTime(schedule[1]!.dueDate) + 60_000);
      expect((await sink.nthMailTo(email, 5)).text.replace(/\n/g, ' ')).to.include(
        'your next payment under your arrangement',
      );
      await skipTo(endOf(schedule[1]!.dueDate) + 7 * DAY + 60_000);
      const notice = await sink.nthMailTo(email, 6);
      expect(notice.text.replace(/\n/g, ' ')).to.include(
        'The payment arrangement you set up with Acme Energy has stopped',
      );
      for (const mail of await sink.mailTo(email)) expectNeutral(mail, debt.externalAccountId);

      // The defaulted plan's third instalment is reminded of nothing (recorded as such): the workflow ends.
      expect(await reminders.result()).to.equal(2);
      // `RECORD_HISTORIES=1` keeps this run's history for the replay test (test/workflows/instalment-reminders-replay).
      if (process.env.RECORD_HISTORIES === '1') {
        mkdirSync(REMINDER_HISTORIES_DIR, { recursive: true });
        const file = join(REMINDER_HISTORIES_DIR, 'two-reminders-then-default.json');
        writeFileSync(file, historyToJson(await reminders.fetchHistory()));
      }
      const history = readableHistory(await reminders.fetchHistory());
      expect(history).to.include(debt.id);
      expect(history, 'no contact detail in the workflow history').to.not.include(email);
      expect(history).to.not.include('Ava').and.not.include('Harris');
      const rows = await notificationsSettled(organizationId, debt.id, 7);
      expect(rows.map((r) => [r.kind, r.status])).to.deep.equal([
        ['portal_link', 'sent'],
        ['plan_schedule', 'sent'],
        ['instalment_reminder', 'sent'],
        ['payment_receipt', 'sent'],
        ['instalment_reminder', 'sent'],
        ['plan_defaulted', 'sent'],
        ['instalment_reminder', 'suppressed'],
      ]);
      expect(rows.at(-1)!.reason).to.equal('plan_not_current');
      expect(await sink.mailTo(email)).to.have.length(6);
    });
  });

  it('the sandbox records each message it would have sent and mails nothing', async () => {
    const { organizationId, debt, email } = await raise('sandbox');
    const [row] = await notificationsSettled(organizationId, debt.id, 1);
    expect(row).to.deep.include({ kind: 'portal_link', status: 'recorded' });
    expect(row!.subject).to.include('Acme Energy');
    expect(row!.body!.replace(/\n/g, ' ')).to.include('Acme Energy has asked us to get in touch with you');
    expect(row!.body).to.include(`${PUBLIC_URLS.sandbox}/portal/l/${SANDBOX_PLACEHOLDERS.portalLink}`);
    expect(row!.body).to.not.match(/\/portal\/l\/[A-Za-z0-9_-]{43}/);
    expect(await testDb()('portal_links').where({ debt_id: debt.id })).to.have.length(0);
    expect(await sink.mailTo(email)).to.have.length(0);
  });
});
