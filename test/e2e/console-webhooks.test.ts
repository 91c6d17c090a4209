import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Page } from 'playwright-core';
import type { WebhookDeliveryActivities } from '../../activities/webhook-delivery';
import { createOrganization, type Organization } from '../../core/access/organizations';
import { recordEvent } from '../../core/events/outbox';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { listAudit } from '../../core/staff/audit-log';
import type { StaffRole } from '../../core/staff/staff-users';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import {
  CONSOLE_SHOTS,
  consoleBrowser,
  newStaffUser,
  noJs,
  seriousAxeViolations,
  shot,
  shotAt,
  type ConsoleBrowser,
} from '../support/console-browser';
import { startDeliveryStack, type DeliveryStack } from '../support/delivery-stack';
import { createDeliveryRetryNow } from '../../core/webhooks/delivery-retry-now';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { testDb } from '../support/resources';
import { startDevServer } from '../support/temporal';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';
import {
  configureReceiver,
  deliveryOfEvent,
  localWebhookConfig,
  localWebhookEnv,
  raiseEvent,
} from '../support/webhooks';

const DAY_MS = 86_400_000;
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10);
const NOWHERE = 'http://127.0.0.1:9/hooks'; // never contacted: no relay runs while its deliveries exist

/**
 * A run's first attempt is its last (its failure final, as the seventh attempt's is in the real schedule, which
 * test/workflows/webhook-delivery.test.ts checks on the time-skipping server): a failing receiver's delivery reaches
 * Failed within seconds. A retry's run (generation 1 and on) keeps the real schedule.
 */
function firstRunEndsAtItsFirstAttempt(real: WebhookDeliveryActivities): WebhookDeliveryActivities {
  return {
    ...real,
    deliverWebhookAttempt: (input) =>
      real.deliverWebhookAttempt(input.generation === 0 ? { ...input, retryDelayMs: null } : input),
  };
}

describe('Console webhooks, deliveries, events and audit log in a real browser with JavaScript off', function () {
  this.timeout(180_000);
  const webhooks = localWebhookConfig();
  let sink: MailSink;
  let mailer: Mailer;
  let server: TestServer;
  let driver: ConsoleBrowser;

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    server = await startTestServer({
      // Retry now signals the delivery stack's runs (started by the suite that needs them).
      deps: {
        mailer,
        deliveryRetryNow: { signal: (run) => createDeliveryRetryNow({ client: stack.client }).signal(run) },
      },
      env: {
        SIGN_IN_REQUESTS_PER_HOUR: '1000',
        SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000',
        ...localWebhookEnv(webhooks),
      },
    });
    driver = consoleBrowser({ baseUrl: () => server.baseUrl, sink: () => sink });
  });
  after(async () => {
    await server?.close();
    mailer?.close();
    await sink?.stop();
  });

  const newOrg = (name: string) => createOrganization(testDb(), { name, mode: 'production' });
  const userOf = (org: Organization, role: StaffRole) => newStaffUser(org.id, role);
  const go = (page: Page, path: string) => page.goto(`${server.baseUrl}${path}`);
  const mainText = (page: Page) => page.locator('main').innerText();
  const auditOf = async (org: Organization) => (await listAudit(testDb(), org.id, 'production', { limit: 100 })).data;

  /** Reloads `page` until its main text says `text` (the page has no script to refresh itself). */
  async function reloadUntil(page: Page, text: string, what: string) {
    await waitFor(
      async () => {
        // A reload that meets the form's own navigation still in flight (Chromium: "Not attached to an active page")
        // is a "not yet": the next one finds the page settled.
        const reloaded = await page.reload().then(
          () => true,
          () => false,
        );
        return reloaded && (await mainText(page)).includes(text);
      },
      { timeoutMs: 30_000, intervalMs: 250, what },
    );
  }

  let stack: DeliveryStack;

  describe('retry all failed since a date (no relay runs: the queued deliveries are checked, then removed)', () => {
    let capped: Organization;
    let other: Organization;

    /** `count` deliveries of `org`, made Failed (their runs marked started) with their failure at `failedAt`. */
    async function failedDeliveries(org: Organization, count: number, failedAt: Date) {
      await testDb().transaction(async (trx) => {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          const event = await recordEvent(trx, org.id, 'debt.created', { n: i });
          ids.push(event.deliveryId!);
        }
        await trx('webhook_deliveries')
          .whereIn('id', ids)
          .update({ status: 'Failed', attempt_count: 7, workflow_started_at: failedAt, updated_at: failedAt });
      });
    }

    const statuses = async (org: Organization) => {
      const rows = await testDb()('webhook_deliveries')
        .where({ organization_id: org.id })
        .groupBy('status')
        .select('status')
        .count<{ status: string; count: string }[]>('* as count');
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
    };

    before(async () => {
      capped = await newOrg('Capped Org');
      other = await newOrg('Untouched Org');
      await configureReceiver(webhooks, capped.id, NOWHERE);
      await configureReceiver(webhooks, other.id, NOWHERE);
      await failedDeliveries(capped, 1_001, new Date(Date.now() - DAY_MS));
      await failedDeliveries(capped, 1, new Date(Date.now() - 10 * DAY_MS));
      await failedDeliveries(other, 1, new Date(Date.now() - DAY_MS));
    });
    after(async () => {
      await testDb()('webhook_deliveries').whereIn('organization_id', [capped.id, other.id]).delete();
    });

    it('pages the list by cursor, queues at most 1,000 a request, none failed earlier and none of another organisation', async () => {
      const email = await userOf(capped, 'admin');
      await withBrowser(async (browser) => {
        const page = await driver.signIn(await noJs(browser), email);
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Deliveries' }).click();
        await page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor();
        const firstIds = await page.locator('tbody tr td:first-child a').allInnerTexts();
        expect(firstIds).to.have.length(50);
        await page.getByRole('link', { name: 'Next page' }).click();
        const secondIds = await page.locator('tbody tr td:first-child a').allInnerTexts();
        expect(secondIds).to.have.length(50);
        expect(secondIds.filter((id) => firstIds.includes(id))).to.deep.equal([]);
        expect(await page.getByRole('link', { name: 'First page' }).count()).to.equal(1);
        await shot(page, 'deliveries');

        await page.getByLabel('Failed since (UTC)').fill(day(-3));
        await page.getByRole('button', { name: 'Retry all failed since this date' }).click();
        await page.getByRole('heading', { name: 'Retries queued' }).waitFor();
        expect(await mainText(page)).to.contain('1,000 failed deliveries queued for retry');
        expect(await mainText(page)).to.contain('That is the most one request queues (1,000)');
        await shot(page, 'deliveries-retried-all');
        expect(await statuses(capped)).to.deep.equal({ Pending: 1_000, Failed: 2 });
        expect(await statuses(other)).to.deep.equal({ Failed: 1 });
        const queued = await testDb()('webhook_deliveries').where({ organization_id: capped.id, status: 'Pending' });
        expect(
          new Set(queued.map((d) => [d.generation, d.attempt_base, d.workflow_started_at].join(' '))),
        ).to.deep.equal(new Set(['1 7 ']));

        await go(page, '/console/deliveries');
        await page.getByLabel('Failed since (UTC)').fill(day(-3));
        await page.getByRole('button', { name: 'Retry all failed since this date' }).click();
        expect(await mainText(page)).to.contain('1 failed delivery queued for retry');
        expect(await statuses(capped)).to.deep.equal({ Pending: 1_001, Failed: 1 }); // the one failed 10 days ago
        expect(await statuses(other)).to.deep.equal({ Failed: 1 });
      });
      const retriedAll = (await auditOf(capped)).filter((e) => e.action === 'deliveries.retried_failed');
      expect(retriedAll.map((e) => e.details.count)).to.deep.equal([1, 1_000]);
      expect(retriedAll[0]!.actorEmail).to.equal(email);
    });
  });

  describe('on the real delivery path (a Temporal dev server, the outbox relay and a worker)', () => {
    let temporal: TestWorkflowEnvironment;
    let receiver: WebhookReceiver;

    before(async () => {
      temporal = await startDevServer();
      receiver = await startWebhookReceiver();
      stack = await startDeliveryStack(temporal, { wrapActivities: firstRunEndsAtItsFirstAttempt });
    });
    after(async () => {
      await stack?.stop();
      await receiver?.close();
      await temporal?.teardown();
    });

    it('sets the receiver URL (SSRF rules as the API), shows the secret once, sends a test event and sees it delivered', async () => {
      const org = await newOrg('Webhook Page Org');
      const email = await userOf(org, 'admin');
      const secrets: string[] = [];
      await withBrowser(async (browser) => {
        const page = await driver.signIn(await noJs(browser), email);
        await page.getByRole('link', { name: 'Webhooks' }).click();
        expect(await mainText(page)).to.contain('None: events are not delivered.');
        await shot(page, 'webhooks-none');

        await page.getByLabel('Receiver URL', { exact: true }).fill('http://10.1.2.3/hooks');
        await page.getByRole('button', { name: 'Save URL' }).click();
        await page.getByRole('heading', { name: 'Receiver URL refused' }).waitFor();
        expect(await mainText(page)).to.contain('invalid_url');
        await shot(page, 'webhook-url-refused');

        await go(page, '/console/webhooks');
        await page.getByLabel('Receiver URL', { exact: true }).fill(receiver.url);
        await page.getByRole('button', { name: 'Save URL' }).click();
        await page.getByRole('heading', { name: 'Receiver saved' }).waitFor();
        const secret = (await page.locator('#secret').innerText()).trim();
        expect(secret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
        secrets.push(secret);
        await shot(page, 'webhook-secret');

        await go(page, '/console/webhooks');
        const shown = await mainText(page);
        expect(shown)
          .to.contain(receiver.url)
          .and.contain(`${secret.slice(0, 12)}…`);
        expect(shown).not.to.contain(secret);
        // The test stack accepts http:// and local hosts, and the form says so.
        expect(await page.locator('#url-help').innerText()).to.contain('and also http:// URLs');
        await shot(page, 'webhooks');

        await page.getByRole('button', { name: 'Send a test event' }).click();
        await page.getByRole('heading', { name: 'Delivery', exact: true }).waitFor();
        expect(await page.getByRole('status').innerText()).to.contain('Test event sent');
        const deliveryId = new URL(page.url()).pathname.split('/').pop()!;
        const request = await waitFor(() => receiver.requests.find((r) => r.deliveryId === deliveryId), {
          what: 'the test event at the receiver',
        });
        expect(request.body.type).to.equal('test.ping');
        expect(verifySignature(request.signature, request.rawBody, secret)).to.include({ ok: true });
        await reloadUntil(page, 'Delivered', 'the test event to show Delivered');
        expect(await page.locator('ol.attempt-timeline li').first().innerText()).to.contain('Delivered (HTTP 200)');
        expect(await page.locator('pre.payload').innerText()).to.contain('"type": "test.ping"');
        expect(await page.getByRole('button', { name: 'Retry', exact: true }).count()).to.equal(0);
        await shot(page, 'delivery');

        await go(page, '/console/webhooks');
        expect(await page.locator('ul.recent-deliveries li').first().innerText()).to.match(/Delivered\s+test\.ping/);
        const [rotateBox, clearBox] = await Promise.all(
          ['Rotate the signing secret', 'Clear the receiver'].map((name) =>
            page.getByRole('link', { name }).boundingBox(),
          ),
        );
        const apart = rotateBox!.x + rotateBox!.width <= clearBox!.x || rotateBox!.y + rotateBox!.height <= clearBox!.y;
        expect(apart, 'the rotate and clear links do not overlap').to.equal(true);
        await shotAt(page, 'webhooks-latest');
        await page.getByRole('link', { name: 'Rotate the signing secret' }).click();
        await shot(page, 'webhook-rotate-confirm');
        await page.getByRole('button', { name: 'Rotate the secret' }).click();
        await page.getByRole('heading', { name: 'Secret rotated' }).waitFor();
        const rotated = (await page.locator('#secret').innerText()).trim();
        secrets.push(rotated);
        expect(rotated)
          .to.match(/^whsec_/)
          .and.not.equal(secret);

        await page.getByRole('link', { name: 'Events' }).click();
        await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
        expect(await page.locator('.events li').first().innerText()).to.contain('test.ping');
        await page.locator('.events summary').first().click(); // <details> opens without script
        expect(await page.locator('.events pre.payload').first().isVisible()).to.equal(true);
        await shot(page, 'events');

        await go(page, '/console/webhooks/clear');
        await shot(page, 'webhook-clear-confirm');
        await page.getByRole('button', { name: 'Clear the receiver' }).click();
        expect(await mainText(page))
          .to.contain('The receiver was cleared')
          .and.contain('None: events are not');

        await page.getByRole('link', { name: 'Audit log' }).click();
        const audit = await mainText(page);
        for (const action of ['webhook.configured', 'webhook.test_sent', 'webhook.secret_rotated', 'webhook.cleared']) {
          expect(audit).to.contain(action);
        }
        expect(audit).not.to.contain(secret).and.not.to.contain(rotated);
        expect(audit)
          .to.contain(`${email} set the webhook receiver to ${receiver.url}`)
          .and.contain(`${email} rotated the webhook signing secret`)
          .and.contain(`${email} sent a test event`);
        await shotAt(page, 'audit-log');
        await page.getByLabel('Action').selectOption('webhook.cleared');
        await page.getByLabel('Who').selectOption(email);
        await page.getByRole('button', { name: 'Filter' }).click();
        expect(new URL(page.url()).searchParams.get('action')).to.equal('webhook.cleared');
        const entries = await page.locator('ol.audit-entries li').allInnerTexts();
        expect(entries).to.have.length(1);
        expect(entries[0]).to.contain(`${email} cleared the webhook receiver`);
        await shotAt(page, 'audit-log-filtered');
      });
      const entries = JSON.stringify(await auditOf(org));
      expect(secrets).to.have.length(2);
      for (const secret of secrets) expect(entries).not.to.contain(secret.slice(12)); // nothing past the prefix
    });

    it('a delivery that reaches Failed is found from the Overview, retried from its page, then Delivered', async () => {
      const org = await newOrg('Failing Receiver Org');
      const email = await userOf(org, 'admin');
      const failing = await startWebhookReceiver();
      let healthy = false;
      failing.respondWith(() => (healthy ? { status: 200, body: 'ok' } : { status: 500, body: 'not yet' }));
      try {
        await configureReceiver(stack.webhooks, org.id, failing.url);
        const eventId = await raiseEvent(org.id, 'debt.created');
        const failed = await waitFor(
          async () => {
            const row = await deliveryOfEvent(eventId);
            return row?.status === 'Failed' && row;
          },
          { timeoutMs: 30_000, what: 'the delivery to reach Failed' },
        );
        await withBrowser(async (browser) => {
          const page = await driver.signIn(await noJs(browser), email);
          expect(await page.getByRole('alert').innerText()).to.contain('1 webhook delivery failed in the last 7 days');
          await shot(page, 'overview-failed');
          await page.getByRole('link', { name: 'See the failed deliveries' }).click();
          expect(new URL(page.url()).search).to.equal('?status=Failed');
          expect(await page.getByLabel('Status', { exact: true }).inputValue()).to.equal('Failed');
          expect(await page.locator('tbody tr').count()).to.equal(1);
          await shot(page, 'deliveries-failed');

          await go(page, `/console/deliveries?status=Failed&eventType=debt.created&from=${day(0)}&to=${day(0)}`);
          expect(await page.locator('tbody tr').count()).to.equal(1);
          await go(page, `/console/deliveries?status=Failed&from=${day(1)}`);
          expect(await mainText(page)).to.contain('No delivery matches.');
          await go(page, '/console/deliveries?status=Delivered');
          expect(await mainText(page)).to.contain('No delivery matches.');
          const bad = await go(page, '/console/deliveries?from=2026-02-30');
          expect(bad?.status()).to.equal(400);

          await go(page, '/console/deliveries?status=Failed');
          await page.locator('tbody tr td:first-child a').click();
          const shown = await mainText(page);
          expect(shown).to.contain('Failed').and.contain('not yet').and.contain('HTTP 500');
          await shot(page, 'delivery-failed');

          // The retry's run keeps the real schedule: its first attempt fails too, and it waits a minute to retry.
          await page.getByRole('button', { name: 'Retry', exact: true }).click();
          expect(new URL(page.url()).pathname).to.equal(`/console/deliveries/${failed.id}`);
          expect(await page.getByRole('status').innerText()).to.contain('Retry queued');
          await reloadUntil(page, 'Retrying', 'the retried delivery to fail its first attempt and wait');
          const retrying = await mainText(page);
          expect(retrying, retrying).to.match(/Retrying\s+attempt 2 failed \(HTTP 500\), next in \d+ (seconds|minute)/);
          expect(await page.locator('ol.attempt-timeline li.attempt-next').innerText()).to.contain(
            'Attempt 3: scheduled',
          );
          await shotAt(page, 'delivery-retrying');
          await go(page, '/console/deliveries');
          expect(await page.locator('tbody tr').first().innerText()).to.match(/Retrying\s+attempt 2 failed, next in/);
          await shotAt(page, 'deliveries-retrying');
          const axePage = await driver.signIn(await browser.newContext({ bypassCSP: true }), email);
          for (const route of [`/console/deliveries/${failed.id}`, '/console/deliveries']) {
            await go(axePage, route);
            expect(await seriousAxeViolations(axePage), `${route} while retrying`).to.deep.equal([]);
          }

          healthy = true;
          await go(page, `/console/deliveries/${failed.id}`);
          await page.getByRole('button', { name: 'Retry now' }).click();
          expect(await page.getByRole('status').innerText()).to.contain('Attempt 3 is being sent now');
          await reloadUntil(page, 'Delivered', 'the delivery retried now to show Delivered');
          const attempts = await page.locator('ol.attempt-timeline li').allInnerTexts();
          expect(attempts).to.have.length(3);
          expect(attempts[0]).to.contain('Attempt 1: Failed (HTTP 500)');
          expect(attempts[1]).to.contain('Attempt 2: Failed (HTTP 500)');
          expect(attempts[2]).to.contain('Attempt 3: Delivered (HTTP 200)');
          expect(await page.getByRole('button', { name: 'Retry', exact: true }).count()).to.equal(0);
          await shotAt(page, 'delivery-retried');
          expect((await auditOf(org)).map((e) => e.action)).to.include.members([
            'delivery.retried',
            'delivery.retried_now',
          ]);

          const csrf = await page.locator('input[name=_csrf]').first().inputValue();
          const again = await driver.forgedPost(
            page,
            `/console/deliveries/${failed.id}/retry`,
            { _csrf: csrf },
            { origin: server.baseUrl },
          );
          expect(again.status).to.equal(409); // only a Failed delivery is retried
        });
        const row = (await deliveryOfEvent(eventId))!;
        expect([row.status, row.generation, row.attempt_count]).to.deep.equal(['Succeeded', 1, 3]);
        expect((await auditOf(org)).map((e) => [e.action, e.target])).to.deep.include(['delivery.retried', failed.id]);
      } finally {
        await failing.close();
      }
    });

    it('refuses a viewer every write, the forged POSTs too, and shows another organisation’s delivery as a 404 page', async () => {
      const org = await newOrg('Viewer Org');
      const stranger = await newOrg('Stranger Org');
      await configureReceiver(stack.webhooks, org.id, receiver.url);
      await configureReceiver(stack.webhooks, stranger.id, receiver.url);
      const own = await deliveryOfEvent(await raiseEvent(org.id));
      const foreign = await deliveryOfEvent(await raiseEvent(stranger.id));
      const viewer = await userOf(org, 'viewer');
      const admin = await userOf(org, 'admin');
      await withBrowser(async (browser) => {
        const page = await driver.signIn(await noJs(browser), viewer);
        await go(page, '/console/webhooks');
        expect(await page.getByRole('button', { name: 'Save URL' }).count()).to.equal(0);
        expect(await mainText(page)).to.contain('Your role can read the receiver but not change it.');
        await shot(page, 'webhooks-viewer');
        await go(page, '/console/deliveries');
        expect(await page.getByRole('button', { name: 'Retry all failed since this date' }).count()).to.equal(0);
        expect(await page.getByRole('link', { name: 'Audit log' }).count()).to.equal(0);
        expect((await go(page, '/console/audit'))?.status()).to.equal(403);
        expect((await go(page, '/console/webhooks/rotate'))?.status()).to.equal(403);

        const csrf = await page.locator('input[name=_csrf]').first().inputValue();
        const forged: [string, Record<string, string>][] = [
          ['/console/webhooks', { url: 'https://hooks.example.com/x' }],
          ['/console/webhooks/test', {}],
          ['/console/webhooks/rotate', {}],
          ['/console/webhooks/clear', {}],
          [`/console/deliveries/${own!.id}/retry`, {}],
          ['/console/deliveries/retry-failed', { since: day(-7) }],
        ];
        for (const [path, form] of forged) {
          const res = await driver.forgedPost(page, path, { _csrf: csrf, ...form }, { origin: server.baseUrl });
          expect(res.status, path).to.equal(403);
          expect(await res.text(), path).to.contain('Only an owner or an admin can change the webhook receiver');
        }
        expect((await auditOf(org)).map((e) => e.action)).to.deep.equal([]);

        const adminPage = await driver.signIn(await noJs(browser), admin);
        expect((await go(adminPage, `/console/deliveries/${foreign!.id}`))?.status()).to.equal(404);
        await shot(adminPage, 'delivery-not-found');
        const adminCsrf = await adminPage.locator('input[name=_csrf]').first().inputValue();
        const retryForeign = await driver.forgedPost(
          adminPage,
          `/console/deliveries/${foreign!.id}/retry`,
          { _csrf: adminCsrf },
          { origin: server.baseUrl },
        );
        expect(retryForeign.status).to.equal(404);
        expect((await go(adminPage, `/console/deliveries/${own!.id}`))?.status()).to.equal(200);
      });
    });

    it('axe-core finds no serious or critical violation on the new pages', async () => {
      const org = await newOrg('Axe Org');
      const email = await userOf(org, 'owner');
      await configureReceiver(stack.webhooks, org.id, receiver.url);
      const delivery = await deliveryOfEvent(await raiseEvent(org.id));
      await withBrowser(async (browser) => {
        const context = await browser.newContext({ bypassCSP: true });
        const page = await driver.signIn(context, email);
        const routes = [
          '/console/webhooks',
          '/console/webhooks/rotate',
          '/console/webhooks/clear',
          '/console/deliveries',
          '/console/deliveries?status=Failed&from=2026-01-01',
          `/console/deliveries/${delivery!.id}`,
          '/console/events',
          '/console/audit',
        ];
        for (const route of routes) {
          await go(page, route);
          expect(await seriousAxeViolations(page), route).to.deep.equal([]);
        }
        await go(page, '/console/webhooks/rotate');
        await page.getByRole('button', { name: 'Rotate the secret' }).click();
        await page.getByRole('heading', { name: 'Secret rotated' }).waitFor();
        expect(await seriousAxeViolations(page), 'secret rotated').to.deep.equal([]);
        await go(page, '/console/deliveries');
        await page.getByRole('button', { name: 'Retry all failed since this date' }).click();
        await page.getByRole('heading', { name: 'Retries queued' }).waitFor();
        expect(await seriousAxeViolations(page), 'retries queued').to.deep.equal([]);
      });
    });
  });
});
