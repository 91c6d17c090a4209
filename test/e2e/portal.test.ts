/**
 * The debtor portal in Chromium on a 360-pixel phone viewport, against the real app, database, Redis and debt
 * lifecycle (a Temporal dev server with the lifecycle worker), the real webhook delivery path (outbox relay, delivery
 * workflow, webhooks worker) and a real receiver that checks signatures from the spec alone. Payments go through the
 * test-mode processor. Each debtor comes in by the link in the email the debtor notifications consumer sends to a
 * real SMTP sink when the debt is raised. The journey runs with JavaScript on (axe-core on every page) and off. Screenshots of every
 * page are saved in test-artifacts/portal/.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createOrganization } from '../../core/access/organizations';
import { ensureCursor } from '../../core/events/cursor';
import { getContactPreferences } from '../../core/notifications/contact-preferences';
import { createTestModeProcessor, TEST_CARDS } from '../../core/payments/test-mode-processor';
import { listCircumstances } from '../../core/portal/circumstances';
import { WEBHOOK_DELIVERY_CONSUMER } from '../../core/webhooks/delivery-consumer';
import { startOutboxRelay, type OutboxRelay } from '../../core/events/relay';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import {
  createNotificationsConsumer,
  DEBTOR_NOTIFICATIONS_CONSUMER,
} from '../../core/notifications/notifications-consumer';
import { createLogger } from '../../core/platform/logger';
import { PORTAL_LINK_PATH } from '../../core/portal/links';
import { testEnv } from '../support/env';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { consumersSkipBacklog } from '../support/outbox-cursors';
import { uniqueTaskQueue } from '../support/temporal';
import { TASK_QUEUES } from '../../core/temporal/names';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { seriousAxeViolations } from '../support/console-browser';
import { callerFor, raiseDebt, type Caller } from '../support/debt-api';
import { startDeliveryStack, type DeliveryStack } from '../support/delivery-stack';
import { testDebtTriggers, testLifecycle } from '../support/lifecycle-stack';
import { clearPortalTries, enterAs, phone, portalShot, PORTAL_SHOTS, type PortalDebt } from '../support/portal-browser';
import { testDb } from '../support/resources';
import { mintKey } from '../support/tenants';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver } from '../support/webhooks';
import { testSecretBox } from '../support/secret-box';

/** Starts the webhook consumer after everything committed so far: other suites' events are not this test's. */
async function skipBacklog(): Promise<void> {
  await ensureCursor(testDb(), { name: WEBHOOK_DELIVERY_CONSUMER, startAt: 'now' }, 'production');
  await testDb().raw(
    `update outbox_cursors set txid = greatest(txid, pg_snapshot_xmin(pg_current_snapshot())), seq = 0
      where consumer = ? and mode = ?`,
    [WEBHOOK_DELIVERY_CONSUMER, 'production'],
  );
}

describe('Debtor portal: the journey in a real browser, with webhooks', function () {
  this.timeout(240_000);
  let server: TestServer;
  let delivery: DeliveryStack;
  let receiver: WebhookReceiver;
  let sink: MailSink;
  let mailer: Mailer;
  let notifications: OutboxRelay;
  const url = (path: string) => `${server.baseUrl}${path}`;

  before(async () => {
    await mkdir(PORTAL_SHOTS, { recursive: true });
    await clearPortalTries();
    const lifecycle = await testLifecycle();
    receiver = await startWebhookReceiver();
    await skipBacklog();
    delivery = await startDeliveryStack(lifecycle.env, { mode: 'production' });
    const paymentProcessor = createTestModeProcessor({ db: testDb(), triggers: testDebtTriggers('production') });
    server = await startTestServer({ deps: { paymentProcessor } });
    // The debtor notifications consumer, as the lifecycle worker runs it, mailing the portal link of each debt raised
    // to the mail sink. (Its reminder workflows go to a queue no worker serves: reminders are tested elsewhere.)
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Debt recovery <notices@collect.example.test>' });
    await consumersSkipBacklog([DEBTOR_NOTIFICATIONS_CONSUMER], 'production');
    const logger = createLogger({ level: 'silent', name: 'portal-test-notifications' });
    const consumer = createNotificationsConsumer({
      db: testDb(),
      mode: 'production',
      publicBaseUrl: server.baseUrl,
      mailer,
      secretBox: testSecretBox(),
      logger,
      client: lifecycle.client('production'),
      taskQueue: uniqueTaskQueue(TASK_QUEUES.lifecycle),
    });
    notifications = startOutboxRelay({
      mode: 'production',
      db: testDb(),
      databaseUrl: testEnv.databaseUrl,
      logger,
      consumers: [consumer],
    });
  });
  after(async () => {
    await notifications?.stop();
    mailer?.close();
    await sink?.stop();
    await server?.close();
    await delivery?.stop();
    await receiver?.close();
  });

  async function newTenant(name: string): Promise<{ orgId: string; api: Caller; secret: string }> {
    const org = await createOrganization(testDb(), { name, mode: 'production' });
    const secret = await configureReceiver(delivery.webhooks, org.id, receiver.url);
    return { orgId: org.id, api: callerFor(server.baseUrl, await mintKey(org.id)), secret };
  }

  async function check(page: Page, javaScript: boolean, name: string): Promise<void> {
    await portalShot(page, javaScript ? name : `${name}-nojs`);
    if (javaScript) expect(await seriousAxeViolations(page), name).to.deep.equal([]);
  }

  /** The receiver's requests for the debt, of the given types, in arrival order. */
  function receivedFor(debtId: string, types: string[]) {
    return receiver.requests.filter(
      (r) => types.includes(r.body.type) && (r.body.data.debt as { id?: string } | undefined)?.id === debtId,
    );
  }

  async function balanceOf(debtId: string): Promise<string> {
    const row = await testDb()('debts').where({ id: debtId }).first('outstanding_principal', 'status');
    return `${Number(row!.outstanding_principal)} ${row!.status}`;
  }

  /**
   * Raises a debt through the API and reads its portal link from the email the debtor is sent (the consumer issues
   * the link: one issued here as well would race it, and the later of the two revokes the other).
   */
  async function emailedLink(
    tenant: { orgId: string; api: Caller },
    overrides: Record<string, unknown> = {},
  ): Promise<PortalDebt & { url: string; email: string }> {
    const address = `debtor.${randomUUID().slice(0, 8)}@example.com`;
    const body = { originalPrincipal: 1250.5, ...overrides, debtorEmail: address };
    const debt = (await raiseDebt(tenant.api, body)) as PortalDebt['debt'];
    const email = await sink.nthMailTo(address, 1);
    const found = new RegExp(`(\\S+${PORTAL_LINK_PATH}([A-Za-z0-9_-]{43}))`).exec(email.text);
    expect(found, email.text).not.to.equal(null);
    return { debt, token: found![2]!, organizationId: tenant.orgId, url: found![1]!, email: email.text };
  }

  for (const javaScript of [true, false]) {
    it(`proves the second factor, accepts, agrees a three-instalment plan and pays the first (JavaScript ${
      javaScript ? 'on' : 'off'
    }); the receiver gets debt.accepted, plan.activated, payment.received in order, signed`, async () => {
      const tenant = await newTenant('Acme Lending');
      const link = await emailedLink(tenant);
      expect(link.email).to.contain('Acme Lending');
      await withBrowser(async (browser) => {
        const page = await (await phone(browser, javaScript)).newPage();
        await page.goto(link.url);
        expect(await page.locator('main').innerText()).not.to.contain('Acme');
        await check(page, javaScript, 'verify');
        await enterAs(page, server.baseUrl, link);
        const text = await page.locator('body').innerText();
        expect(text).to.contain('What you owe Acme Lending').and.to.contain('1,250.50 AUD');
        expect(text).to.contain('help@collector.example').and.to.contain('1800 000 000');
        await check(page, javaScript, 'debt');

        await page.getByRole('button', { name: 'I accept this debt' }).click();
        await page.getByText('You have accepted this debt.').first().waitFor();
        await check(page, javaScript, 'debt-accepted');

        await page.getByRole('link', { name: 'Set up a payment plan' }).click();
        await page.getByRole('heading', { name: 'Set up a payment plan' }).waitFor();
        await check(page, javaScript, 'plan');
        await page.getByLabel('Number of payments').fill('3');
        await page.getByLabel('Every month').check();
        await page.getByRole('button', { name: 'Show me the schedule' }).click();
        await page.getByRole('heading', { name: 'Check your plan' }).waitFor();
        const rows = await page.locator('table.schedule tbody tr').allInnerTexts();
        expect(rows).to.have.length(3);
        expect(rows.map((r) => r.split('\t')[1])).to.deep.equal(['416.83 AUD', '416.83 AUD', '416.84 AUD']);
        await check(page, javaScript, 'plan-preview');
        await page.getByRole('button', { name: 'I agree to this plan' }).click();
        await page.getByText('Your payment plan is set up.').waitFor();
        await check(page, javaScript, 'debt-plan');

        await page.getByRole('link', { name: 'Make a payment' }).click();
        await page.getByRole('heading', { name: 'Make a payment' }).waitFor();
        expect(await page.getByLabel('The next payment of your plan: 416.83 AUD').isChecked()).to.equal(true);
        // "Other amount" is revealed by CSS alone, only while "Another amount" is chosen, with or without JavaScript.
        const otherAmount = page.getByLabel('Other amount (AUD)');
        expect(await otherAmount.isVisible()).to.equal(false);
        // A production host in tests names the test cards; a real one never does (portal-test-cards.test.ts).
        expect(await page.locator('main').innerText()).to.contain('Test mode: no money moves.');
        await check(page, javaScript, 'pay');
        await page.getByLabel('Another amount').check();
        await otherAmount.waitFor({ state: 'visible' });
        await check(page, javaScript, 'pay-other-amount');
        await page.getByLabel('The full balance: 1,250.50 AUD').check();
        await otherAmount.waitFor({ state: 'hidden' });
        await page.getByLabel('The next payment of your plan: 416.83 AUD').check();
        await otherAmount.waitFor({ state: 'hidden' });
        await page.getByLabel('Card number').fill(TEST_CARDS.succeeds);
        await page.getByRole('button', { name: 'Pay now' }).click();
        await page.getByRole('heading', { name: 'Payment received' }).waitFor();
        expect(await page.locator('main').innerText()).to.contain('Your balance is now 833.67 AUD');
        await check(page, javaScript, 'pay-succeeded');
      });
      expect(await balanceOf(link.debt.id)).to.equal('833.67 Active');

      const types = ['debt.accepted', 'plan.activated', 'payment.received'];
      const received = await waitFor(
        () => receivedFor(link.debt.id, types).length >= 3 && receivedFor(link.debt.id, types),
        {
          timeoutMs: 60_000,
          what: 'the three events at the receiver',
        },
      );
      expect(received.map((r) => r.body.type)).to.deep.equal(types);
      for (const request of received) {
        expect(verifySignature(request.signature, request.rawBody, tenant.secret), request.body.type).to.deep.include({
          ok: true,
        });
      }
    });
  }

  it('a declined card changes nothing and says so; paying the full balance settles the debt, which then offers no action', async () => {
    const tenant = await newTenant('Birch Finance');
    const link: PortalDebt = await emailedLink(tenant, { originalPrincipal: 300 });
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, true)).newPage();
      await enterAs(page, server.baseUrl, link);
      await page.getByRole('link', { name: 'Make a payment' }).click();
      await page.getByLabel('Another amount').check();
      await page.getByLabel('Other amount (AUD)').fill('100');
      await page.getByLabel('Card number').fill(TEST_CARDS.declined);
      await page.getByRole('button', { name: 'Pay now' }).click();
      await page.getByRole('heading', { name: 'Payment declined' }).waitFor();
      expect(await page.locator('main').innerText()).to.contain('no money was taken and your balance has not changed');
      await check(page, true, 'pay-declined');
      expect(await balanceOf(link.debt.id)).to.equal('300 PendingAssignment');
      expect(await testDb()('transactions').where({ debt_id: link.debt.id }).count('* as n')).to.deep.equal([{ n: 0 }]);

      await page.getByRole('link', { name: 'Try again' }).click();
      await page.getByLabel('Another amount').check();
      await page.getByLabel('Other amount (AUD)').fill('400');
      await page.getByLabel('Card number').fill(TEST_CARDS.succeeds);
      await page.getByRole('button', { name: 'Pay now' }).click();
      await page.getByText('That is more than you owe.').first().waitFor();
      // The error summary comes first in <main> and links to the field to correct, which is shown with its value.
      expect(await page.title()).to.match(/^Error: Make a payment · /);
      const summary = page.locator('main > .error-summary');
      expect(await summary.getByRole('heading', { name: 'There is a problem' }).count()).to.equal(1);
      expect(await summary.getByRole('link').getAttribute('href')).to.equal('#amount');
      expect(await page.getByLabel('Other amount (AUD)').inputValue()).to.equal('400');
      expect(await page.getByLabel('Other amount (AUD)').getAttribute('aria-invalid')).to.equal('true');
      // …and the problem is repeated right above the field, which it describes.
      const fieldError = page.locator('#amount-error');
      expect(await fieldError.innerText()).to.contain('That is more than you owe.');
      expect(await page.getByLabel('Other amount (AUD)').getAttribute('aria-describedby')).to.equal('amount-error');
      await check(page, true, 'pay-refused');

      await page.getByLabel('The full balance: 300.00 AUD').check();
      await page.getByLabel('Card number').fill(TEST_CARDS.succeeds);
      await page.getByRole('button', { name: 'Pay now' }).click();
      await page.getByRole('heading', { name: 'Payment received' }).waitFor();
      await page.getByRole('link', { name: 'Back to your account' }).click();
      const text = await page.locator('main').innerText();
      expect(text).to.contain('Paid in full').and.to.contain('There is nothing more to pay');
      expect(await page.getByRole('link', { name: 'Make a payment' }).count()).to.equal(0);
      expect(await page.getByRole('button', { name: 'I accept this debt' }).count()).to.equal(0);
      expect(await page.getByRole('link', { name: 'Tell us about your circumstances' }).count()).to.equal(0);
      await check(page, true, 'debt-settled');
      const refused = await page.goto(url('/portal/pay'));
      expect(refused?.status()).to.equal(409);
    });
    expect(await balanceOf(link.debt.id)).to.equal('0 Settled');
  });

  it('a dispute hides the payment prompts and the receiver gets debt.disputed; circumstances are kept for the creditor, the email opt-out is saved', async () => {
    const tenant = await newTenant('Cedar Credit');
    const link = await emailedLink(tenant);
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, true)).newPage();
      await enterAs(page, server.baseUrl, link);
      await page.getByRole('link', { name: 'I do not agree with this debt' }).click();
      await page.getByRole('heading', { name: 'Dispute this debt' }).waitFor();
      await check(page, true, 'dispute');
      await page.getByRole('button', { name: 'Send my dispute' }).click(); // empty: the browser's own check stops it
      expect(new URL(page.url()).pathname).to.equal('/portal/dispute');
      await page.getByLabel('Why do you dispute this debt?').fill('I paid this in full in March.');
      await page.getByRole('button', { name: 'Send my dispute' }).click();
      await page.getByText('We have your dispute.').waitFor();
      const text = await page.locator('main').innerText();
      expect(text).to.contain('I paid this in full in March.').and.to.contain('Payments are paused');
      expect(await page.getByRole('link', { name: 'Make a payment' }).count()).to.equal(0);
      expect(await page.getByRole('link', { name: 'Set up a payment plan' }).count()).to.equal(0);
      await check(page, true, 'debt-disputed');
      const refused = await page.goto(url('/portal/pay'));
      expect(refused?.status()).to.equal(409);
      expect(await page.locator('main').innerText()).to.contain('While your dispute is open');
      await check(page, true, 'pay-while-disputed');

      await page.goto(url('/portal/circumstances'));
      await check(page, true, 'circumstances');
      await page.getByLabel('Your message').fill('I lost my job in October and can pay 20 a week.');
      await page.getByRole('button', { name: 'Send my message' }).click();
      await page.getByText('We have passed your message to the creditor.').waitFor();

      await page.getByRole('link', { name: 'Contact preferences' }).click();
      await check(page, true, 'preferences');
      await page.getByLabel('No, do not email me').check();
      await page.getByRole('button', { name: 'Save my preferences' }).click();
      await page.getByText('Your contact preferences are saved.').waitFor();
    });
    const stored = await listCircumstances(testDb(), tenant.orgId, link.debt.id);
    expect(stored.map((c) => c.body)).to.deep.equal(['I lost my job in October and can pay 20 a week.']);
    expect((await getContactPreferences(testDb(), tenant.orgId, link.debt.debtorId)).emailOptedOut).to.equal(true);
    expect(await balanceOf(link.debt.id)).to.equal('1250.5 Disputed');
    const disputed = await waitFor(() => receivedFor(link.debt.id, ['debt.disputed'])[0], {
      timeoutMs: 60_000,
      what: 'debt.disputed at the receiver',
    });
    expect(verifySignature(disputed.signature, disputed.rawBody, tenant.secret)).to.deep.include({ ok: true });
  });
});
