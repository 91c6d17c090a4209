/**
 * Debtor notifications in a real browser with JavaScript off, against the real app, database, outbox relay with the
 * notifications consumer, debt lifecycle (Temporal) and mail sink: the sandbox records a debtor's journey and mails
 * nothing, and its Debtor emails page lists it; the opt-out link opts out from its landing page's POST and never from
 * the GET alone; a debt's page sends a new portal link (the old one refused) and revokes it, audit-logged without the
 * token. axe-core on every new page; a screenshot of each (test-artifacts/console/).
 */
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import { Worker } from '@temporalio/worker';
import type { Page } from 'playwright-core';
import { createDebtLifecycleActivities } from '../../activities/debt-lifecycle';
import { createDebtorNotificationActivities } from '../../activities/debtor-notifications';
import { createOrganization, type Organization } from '../../core/access/organizations';
import { startOutboxRelay, type OutboxRelay } from '../../core/events/relay';
import { getContactPreferences } from '../../core/notifications/contact-preferences';
import { notificationsOfDebt, type NotificationRow } from '../../core/notifications/debtor-notifications';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import {
  createNotificationsConsumer,
  DEBTOR_NOTIFICATIONS_CONSUMER,
} from '../../core/notifications/notifications-consumer';
import { createLogger } from '../../core/platform/logger';
import type { Mode } from '../../core/platform/mode';
import { resolvePortalLink } from '../../core/portal/links';
import { NAMESPACES, TASK_QUEUES } from '../../core/temporal/names';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { CONSOLE_SHOTS, consoleBrowser, newStaffUser } from '../support/console-browser';
import { callerFor, inlineDebtBody, raiseDebt, type Caller } from '../support/debt-api';
import { testEnv } from '../support/env';
import { testLifecycle } from '../support/lifecycle-stack';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { consumersSkipBacklog } from '../support/outbox-cursors';
import { testDb } from '../support/resources';
import { bundleWorkflows, uniqueTaskQueue } from '../support/temporal';
import { mintKey } from '../support/tenants';
import { waitFor } from '../support/wait';
import { testSecretBox } from '../support/secret-box';

const logger = createLogger({ level: 'silent', name: 'notifications-e2e' });
const FROM = 'notifications@collect.example.test';
const TOKEN = /\/portal\/l\/([A-Za-z0-9_-]{43})/;
const OPT_OUT = /(\/notifications\/opt-out\/[A-Za-z0-9_-]{43})/;

describe('Debtor notifications: sandbox Debtor emails, opt-out link, portal link actions (JavaScript off)', function () {
  this.timeout(240_000);
  let sink: MailSink;
  let consoleMailer: Mailer;
  let debtorMailer: Mailer;
  const servers = {} as Record<Mode, TestServer>;
  const relays: OutboxRelay[] = [];
  const workers: { worker: Worker; run: Promise<void> }[] = [];
  let current: Mode = 'production';
  const { shot, noJs, signIn, forgedPost, seriousViolations } = consoleBrowser({
    baseUrl: () => servers[current].baseUrl,
    sink: () => sink,
  });

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    sink = await startMailSink();
    consoleMailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    debtorMailer = createMailer({ smtpUrl: sink.smtpUrl, from: `Debt recovery <${FROM}>` });
    const stack = await testLifecycle();
    const workflowBundle = await bundleWorkflows(require.resolve('../../workflows/bundles/lifecycle'));
    for (const mode of ['production', 'sandbox'] as const) {
      servers[mode] = await startTestServer({
        mode,
        deps: { mailer: consoleMailer, debtorMailer },
        env: { SIGN_IN_REQUESTS_PER_HOUR: '1000', SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000' },
      });
      const deps = {
        db: testDb(),
        mode,
        publicBaseUrl: servers[mode].baseUrl,
        mailer: debtorMailer,
        secretBox: testSecretBox(),
        logger,
      };
      // The plans' reminder workflows run on a queue of this suite, with the notification activities.
      const taskQueue = uniqueTaskQueue(TASK_QUEUES.lifecycle);
      const worker = await Worker.create({
        connection: stack.env.nativeConnection,
        namespace: NAMESPACES[mode],
        taskQueue,
        workflowBundle,
        activities: { ...createDebtLifecycleActivities({ db: testDb() }), ...createDebtorNotificationActivities(deps) },
      });
      workers.push({ worker, run: worker.run() });
      await consumersSkipBacklog([DEBTOR_NOTIFICATIONS_CONSUMER], mode);
      const consumer = createNotificationsConsumer({ ...deps, client: stack.client(mode), taskQueue });
      relays.push(
        startOutboxRelay({ mode, db: testDb(), databaseUrl: testEnv.databaseUrl, logger, consumers: [consumer] }),
      );
    }
  });
  after(async () => {
    await Promise.allSettled(relays.map((r) => r.stop()));
    for (const { worker } of workers) worker.shutdown();
    await Promise.allSettled(workers.map((w) => w.run));
    await Promise.allSettled(Object.values(servers).map((s) => s.close()));
    consoleMailer?.close();
    debtorMailer?.close();
    await sink?.stop();
  });

  async function newOrg(mode: Mode): Promise<{ org: Organization; api: Caller }> {
    const org = await createOrganization(testDb(), { name: 'Acme Energy', mode });
    return { org, api: callerFor(servers[mode].baseUrl, await mintKey(org.id, { mode })) };
  }

  async function handled(org: Organization, debtId: string, count: number): Promise<NotificationRow[]> {
    let rows: NotificationRow[] = [];
    await waitFor(
      async () => {
        rows = await notificationsOfDebt(testDb(), org.id, debtId);
        return rows.length >= count && rows.every((r) => r.status !== 'pending' && r.status !== 'sending');
      },
      { what: `${count} handled notification(s)` },
    );
    return rows;
  }

  it('the sandbox records a debtor’s journey, mails nothing, and lists it on the Debtor emails page', async () => {
    current = 'sandbox';
    const { org, api } = await newOrg('sandbox');
    const viewer = await newStaffUser(org.id, 'viewer'); // every role may read the page
    const body = inlineDebtBody({ originalPrincipal: 900 });
    const debt = await raiseDebt(api, body);
    const simulate = async (action: string, payload: Record<string, unknown> = {}) => {
      const res = await api('POST', `/v1/sandbox/debts/${debt.id}/${action}`, payload);
      expect(res.status, res.text).to.equal(200);
    };
    await simulate('accept');
    const firstDueDate = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await simulate('plan', { instalmentCount: 3, frequency: 'Monthly', firstDueDate });
    await simulate('payments', { amount: 300 });
    const rows = await handled(org, debt.id, 3);
    expect(rows.map((r) => [r.kind, r.status])).to.deep.equal([
      ['portal_link', 'recorded'],
      ['plan_schedule', 'recorded'],
      ['payment_receipt', 'recorded'],
    ]);
    expect(await sink.mailTo(body.debtorEmail as string)).to.have.length(0);

    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), viewer);
      await page.getByRole('link', { name: 'Debtor emails' }).click();
      await page.getByRole('heading', { name: 'Debtor emails', level: 1 }).waitFor();
      const text = await page.locator('main').innerText();
      expect(text).to.contain('Portal link').and.contain('Plan schedule').and.contain('Payment receipt');
      expect(text).to.contain('Would have been sent');
      // Every debtor email has the same neutral subject; the summary names its kind for a screen reader.
      await page.locator('summary', { hasText: 'Payment receipt' }).click(); // <details> opens without script
      await page.getByText('we received a payment to').waitFor();
      await shot(page, 'debtor-emails');

      const axeContext = await browser.newContext({ bypassCSP: true });
      const axePage = await signIn(axeContext, viewer);
      await axePage.goto(`${servers.sandbox.baseUrl}/console/notifications`);
      expect(await seriousViolations(axePage)).to.deep.equal([]);
    });
    // Production has no such page.
    current = 'production';
    const prod = await newOrg('production');
    const prodViewer = await newStaffUser(prod.org.id, 'viewer');
    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), prodViewer);
      expect(await page.getByRole('link', { name: 'Debtor emails' }).count()).to.equal(0);
      const answer = await page.goto(`${servers.production.baseUrl}/console/notifications`);
      expect(answer?.status()).to.equal(404);
    });
  });

  it('the opt-out link opts the debtor out from its landing page’s POST, never from the GET alone', async () => {
    current = 'production';
    const { org, api } = await newOrg('production');
    const body = inlineDebtBody();
    const debt = await raiseDebt(api, body);
    const mail = await sink.nthMailTo(body.debtorEmail as string, 1);
    expect(mail.from[0]?.address).to.equal(FROM);
    const path = OPT_OUT.exec(mail.text)?.[1];
    expect(path, mail.text).to.be.a('string');
    const optedOut = async () => (await getContactPreferences(testDb(), org.id, debt.debtorId)).emailOptedOut;

    // A mail scanner opens the link: nothing changes.
    const landing = await fetch(`${servers.production.baseUrl}${path}`);
    expect(landing.status).to.equal(200);
    expect(await landing.text()).to.contain('Stop emails');
    expect(await optedOut()).to.equal(false);
    // A POST without the page's token is refused.
    const forged = await fetch(`${servers.production.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '_csrf=forged',
    });
    expect(forged.status).to.equal(403);
    expect(await optedOut()).to.equal(false);
    const unknown = await fetch(`${servers.production.baseUrl}/notifications/opt-out/${'A'.repeat(43)}`);
    expect(unknown.status).to.equal(404);

    await withBrowser(async (browser) => {
      const page = await (await noJs(browser)).newPage();
      await page.goto(`${servers.production.baseUrl}${path}`);
      await page.getByRole('heading', { name: 'Stop emails about this debt' }).waitFor();
      expect(await page.locator('main').innerText()).to.contain('Acme Energy');
      await shot(page, 'opt-out-landing');
      await page.getByRole('button', { name: 'Stop emails' }).click();
      await page.getByRole('heading', { name: 'You will not get more emails' }).waitFor();
      await shot(page, 'opt-out-done');
      expect(await optedOut()).to.equal(true);

      const axe = await (await browser.newContext({ bypassCSP: true })).newPage();
      await axe.goto(`${servers.production.baseUrl}${path}`);
      expect(await seriousViolations(axe)).to.deep.equal([]);
    });
    // The debtor's next notification is not sent, and the record says why.
    const next = await raiseDebt(api, {
      debtorId: debt.debtorId,
      debtorReferenceId: undefined,
      debtorFirstName: undefined,
      debtorLastName: undefined,
      debtorEmail: undefined,
    });
    const [row] = await handled(org, next.id, 1);
    expect(row).to.deep.include({ status: 'suppressed', reason: 'opted_out' });
    expect(await sink.mailTo(body.debtorEmail as string)).to.have.length(1);
  });

  it('a debt’s page sends a new portal link (the old one refused) and revokes it; audit-logged without the token', async () => {
    current = 'production';
    const { org, api } = await newOrg('production');
    const owner = await newStaffUser(org.id, 'owner');
    const viewer = await newStaffUser(org.id, 'viewer');
    const body = inlineDebtBody();
    const email = body.debtorEmail as string;
    const debt = await raiseDebt(api, body);
    const first = TOKEN.exec((await sink.nthMailTo(email, 1)).text)![1]!;
    expect(await resolvePortalLink(testDb(), first)).to.not.equal(null);

    await withBrowser(async (browser) => {
      const page: Page = await signIn(await noJs(browser), owner);
      await page.goto(`${servers.production.baseUrl}/console/debts/${debt.id}`);
      await page.getByRole('heading', { name: 'Portal link' }).waitFor();
      expect(await page.locator('main').innerText()).to.contain('The debtor has a working link, sent');
      await shot(page, 'debt-portal-link');
      await page.getByRole('button', { name: 'Send a new portal link' }).click();
      await page.getByText('A new portal link was emailed to the debtor.').waitFor();
      await shot(page, 'debt-portal-link-sent');
      const second = TOKEN.exec((await sink.nthMailTo(email, 2)).text)![1]!;
      expect(await resolvePortalLink(testDb(), first), 'the old link').to.equal(null);
      expect(await resolvePortalLink(testDb(), second)).to.deep.include({ debtId: debt.id });

      await page.getByRole('link', { name: 'Back to the debt' }).click();
      await page.getByRole('button', { name: 'Revoke the portal link' }).click();
      await page.getByText('The portal link is revoked').waitFor();
      expect(await page.locator('main').innerText()).to.contain('The debtor has no working link.');
      await shot(page, 'debt-portal-link-revoked');
      expect(await resolvePortalLink(testDb(), second)).to.equal(null);
      const entries = await testDb()('audit_log').where({ organization_id: org.id }).orderBy('created_at');
      expect(entries.map((e: { action: string }) => e.action)).to.deep.equal([
        'portal_link.sent',
        'portal_link.revoked',
      ]);
      expect(JSON.stringify(entries)).to.not.contain(second).and.not.contain(first);

      // A viewer sees the section without its buttons, and a forged POST is refused.
      const viewing = await signIn(await noJs(browser), viewer);
      await viewing.goto(`${servers.production.baseUrl}/console/debts/${debt.id}`);
      expect(await viewing.getByRole('button', { name: 'Send a new portal link' }).count()).to.equal(0);
      const csrf = await viewing.locator('input[name=_csrf]').first().getAttribute('value');
      const refused = await forgedPost(viewing, `/console/debts/${debt.id}/portal-link/send`, { _csrf: csrf! }, {});
      expect(refused.status).to.equal(403);
      expect(await sink.mailTo(email)).to.have.length(2);

      // Another organisation's debt is not found, for an owner too; nothing is revoked or sent.
      const other = await newOrg('production');
      const foreign = await raiseDebt(other.api);
      await handled(other.org, foreign.id, 1);
      const ownerCsrf = await page.locator('input[name=_csrf]').first().getAttribute('value');
      for (const action of ['send', 'revoke']) {
        const answer = await forgedPost(
          page,
          `/console/debts/${foreign.id}/portal-link/${action}`,
          { _csrf: ownerCsrf! },
          {},
        );
        expect(answer.status, action).to.equal(404);
      }
      expect(await testDb()('portal_links').where({ debt_id: foreign.id }).whereNull('revoked_at')).to.have.length(1);

      const axeContext = await browser.newContext({ bypassCSP: true });
      const axePage = await signIn(axeContext, owner);
      await axePage.goto(`${servers.production.baseUrl}/console/debts/${debt.id}`);
      expect(await seriousViolations(axePage)).to.deep.equal([]);
    });
  });

  it('in the sandbox, a new portal link is shown once on the page and nothing is mailed', async () => {
    current = 'sandbox';
    const { org, api } = await newOrg('sandbox');
    const admin = await newStaffUser(org.id, 'admin');
    const body = inlineDebtBody();
    const debt = await raiseDebt(api, body);
    await handled(org, debt.id, 1);
    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), admin);
      await page.goto(`${servers.sandbox.baseUrl}/console/debts/${debt.id}`);
      await page.getByRole('button', { name: 'Send a new portal link' }).click();
      await page.getByText('The sandbox sends no email').waitFor();
      const shown = await page.locator('code.secret').innerText();
      await shot(page, 'debt-portal-link-sandbox');
      const token = TOKEN.exec(shown)?.[1];
      expect(await resolvePortalLink(testDb(), token!)).to.deep.include({ debtId: debt.id });
    });
    const rows = await handled(org, debt.id, 2);
    expect(rows.map((r) => r.status)).to.deep.equal(['recorded', 'recorded']);
    expect(JSON.stringify(rows)).to.not.match(TOKEN);
    expect(await sink.mailTo(body.debtorEmail as string)).to.have.length(0);
  });
});
