/**
 * The production profile (scripts/stage.sh) end to end, through https, in production configuration: its own
 * instance brought up by the operator's command (test/support/production-profile.ts), then driven only from outside,
 * as its users reach it. The operator creates an organisation and invites a developer with the CLI; the developer
 * signs in to the console by the emailed link in Chromium, mints a key, sets the webhook receiver, and calls the
 * API with the key; a debt's debtor gets the portal email, verifies, accepts, agrees a plan and pays by card through
 * the Stripe adapter (Stripe's API is the suite's local stand-in, Stripe's signed webhook is sent by the test, as
 * Stripe would); the receiver gets the events, signed; the Temporal Web
 * UI finds the debt's workflow by its search attribute. Midway one API process and one worker are killed with
 * SIGKILL and supervisor brings them back. Screenshots of every page: test-artifacts/stage/.
 */
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { FormData, Response } from 'undici';
import type { BrowserContext, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../core/platform/project-root';
import { RedactedSecret } from '../../core/platform/payment-config';
import { createStripeClient } from '../../core/payments/stripe-client';
import { PORTAL_LINK_PATH } from '../../core/portal/links';
import { workflowIds } from '../../core/temporal/names';
import { PAGE_CSP } from '../../web/page';
import { withBrowser } from '../support/browser';
import { mailboxAt, type Mailbox, type ReceivedMail } from '../support/mail-sink';
import { http2Request } from '../support/http2-request';
import { goodRows, PLACEMENT_HEADER } from '../support/placements';
import { threadNiceValues } from '../support/processes';
import { postStripeEvent, startFakeStripeApi, stripeEvent, type FakeStripeApi } from '../support/fake-stripe-api';
import { PROFILE_STRIPE, startProductionProfile, type ProductionProfile } from '../support/production-profile';
import { enterPortal, PHONE } from '../support/portal-browser';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, verifySignature, type WebhookReceiver } from '../support/webhook-receiver';

const SHOTS = path.join(PROJECT_ROOT, 'test-artifacts', 'stage');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

describe('the production profile, through https (scripts/stage.sh)', function () {
  this.timeout(600_000);
  let profile: ProductionProfile;
  let mail: Mailbox;
  let receiver: WebhookReceiver;
  let stripeApi: FakeStripeApi;
  let production: string;
  const run = randomUUID().slice(0, 8);
  const developer = `dev.${run}@creditor.example`;
  const debtorEmail = `debtor.${run}@example.com`;
  const mailed: ReceivedMail[] = [];
  let organizationId: string;
  let apiKey: string;
  let invitationLink: string;
  let webhookSecret: string;
  let debt: { id: string; externalAccountId: string };
  let portalToken: string;

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    stripeApi = await startFakeStripeApi({ port: PROFILE_STRIPE.port });
    profile = await startProductionProfile();
    production = profile.env.PRODUCTION_BASE_URL!;
    mail = mailboxAt(profile.env.MAIL_INBOX_URL!);
    receiver = await startWebhookReceiver('/hooks', { tls: profile.serverTls });
  });
  // The profile stays up for the suite's other files (a start only checks what is running); `npm test` stops it at
  // the end (scripts/test.sh), and `scripts/stage.sh stop` with STAGE_NAME=stagetest does after a file run alone.
  after(async () => {
    await receiver?.close();
    await stripeApi?.close();
  });

  /** The console and the Temporal UI on a desktop screen, the debtor's portal on a phone; JavaScript off unless asked. */
  const DESKTOP = { width: 1280, height: 800 };
  const browse = <T>(
    fn: (context: BrowserContext) => Promise<T>,
    options: { javaScript?: boolean; viewport?: { width: number; height: number } } = {},
  ) =>
    withBrowser(
      async (browser) =>
        fn(
          await browser.newContext({
            javaScriptEnabled: options.javaScript ?? false,
            viewport: options.viewport ?? DESKTOP,
          }),
        ),
      profile.chromiumArgs,
    );

  async function nthMail(address: string, n: number): Promise<ReceivedMail> {
    const message = await mail.nthMailTo(address, n);
    mailed.push(message);
    return message;
  }

  it('the proxy: http:// is redirected to https:// (308); https answers carry HSTS, pages the CSP', async () => {
    const redirected = await fetch(`${profile.env.HTTP_PRODUCTION_URL}/console/sign-in?x=1`, { redirect: 'manual' });
    expect(redirected.status).to.equal(308);
    expect(redirected.headers.get('location')).to.equal(`${production}/console/sign-in?x=1`);

    const page = await profile.fetch(`${production}/console/sign-in`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('strict-transport-security')).to.equal('max-age=31536000; includeSubDomains');
    expect(page.headers.get('content-security-policy')).to.equal(PAGE_CSP);
    expect(page.headers.get('server')).to.equal(null);
    const api = await profile.fetch(`${production}/v1/organization`);
    expect(api.status).to.equal(401);
    expect(api.headers.get('strict-transport-security')).to.equal('max-age=31536000; includeSubDomains');
    // The app is not reachable around the proxy from elsewhere: it listens on loopback only (HOST=127.0.0.1).
    expect(new URL(production).protocol).to.equal('https:');
  });

  it('an operator creates the organisation and invites a developer with the CLI; the invitation’s link is https on the public host', async () => {
    const created = JSON.parse(await profile.stage('cli', 'org', 'create', '--name', `Stage Lending ${run}`)) as {
      id: string;
    };
    organizationId = created.id;
    const invited = await profile.stage(
      'cli',
      'user',
      'invite',
      '--org',
      organizationId,
      '--email',
      developer,
      '--role',
      'admin',
    );
    expect(invited).to.contain(`invited ${developer} as admin`);
    const invitation = await nthMail(developer, 1);
    const link = new RegExp(`${production.replace(/[.]/g, '\\.')}/console/sign-in/link\\?token=[A-Za-z0-9_-]{43}`).exec(
      invitation.text,
    )?.[0];
    expect(link, invitation.text).to.be.a('string');
    invitationLink = link!;
  });

  it('the developer signs in by the emailed link in Chromium: the session cookie is __Host-, Secure, HttpOnly, SameSite=Lax', async () => {
    await browse(async (context) => {
      const page = await context.newPage();
      await page.goto(`${production}/console/sign-in`);
      await shot(page, 'console-sign-in');
      // The invitation's link: asking for another on the sign-in page counts against the hour's five per client
      // address, and every visitor of this long-lived instance comes from the proxy's one address.
      await page.goto(invitationLink);
      await shot(page, 'console-link-landing');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(new URL(page.url()).origin).to.equal(production);
      await shot(page, 'console-overview');
      const cookies = await context.cookies(production);
      const session = cookies.find((c) => c.name === '__Host-console_session');
      expect(session, JSON.stringify(cookies)).to.include({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
      expect(session!.domain).to.equal('localhost');
      for (const cookie of cookies) expect(cookie, cookie.name).to.include({ secure: true, httpOnly: true });

      // A key, minted here and used against the API through the proxy.
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name').fill('Stage CI');
      await page.getByLabel('debts:read').check();
      await page.getByLabel('debts:write').check();
      await page.getByLabel('debts:documents:write').check();
      await page.getByRole('button', { name: 'Mint key' }).click();
      apiKey = (await page.locator('#secret').innerText()).trim();
      expect(apiKey).to.match(/^ak_live_[A-Za-z0-9]{40}$/);
      await shot(page, 'console-key-minted');
      const organization = await profile.fetch(`${production}/v1/organization`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(organization.status).to.equal(200);
      expect(((await organization.json()) as { id: string }).id).to.equal(organizationId);

      // A second key, minted and revoked: the API refuses it.
      await page.goto(`${production}/console/keys`);
      await page.getByLabel('Name').fill('Stage revoked');
      await page.getByRole('button', { name: 'Mint key' }).click();
      const revoked = (await page.locator('#secret').innerText()).trim();
      const auth = { headers: { authorization: `Bearer ${revoked}` } };
      expect((await profile.fetch(`${production}/v1/organization`, auth)).status).to.equal(200);
      await page.goto(`${production}/console/keys`);
      await page.getByRole('link', { name: 'Revoke Stage revoked' }).click();
      await shot(page, 'console-key-revoke');
      await page.getByRole('button', { name: 'Revoke the key' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await shot(page, 'console-keys');
      await waitFor(async () => (await profile.fetch(`${production}/v1/organization`, auth)).status === 401, {
        what: 'the revoked key to be refused through the proxy',
        timeoutMs: 10_000,
      });

      // The receiver: an https URL the workers reach, its signing secret shown once.
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Receiver URL', { exact: true }).fill(receiver.url);
      await page.getByRole('button', { name: 'Save URL' }).click();
      await page.getByRole('heading', { name: 'Receiver saved' }).waitFor();
      webhookSecret = (await page.locator('#secret').innerText()).trim();
      expect(webhookSecret).to.match(/^whsec_/);
      await shot(page, 'console-webhook-saved');
    });
  });

  it('a debt raised with the key mails its debtor the portal link; an API process and the lifecycle worker are killed with SIGKILL and supervisor brings them back', async () => {
    const ref = randomUUID().slice(0, 8);
    const raised = await profile.fetch(`${production}/v1/debts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        debtorReferenceId: `DBR-${ref}`,
        debtorFirstName: 'Ava',
        debtorLastName: 'Harris',
        debtorEmail,
        originalPrincipal: 1250.5,
        externalAccountId: `ACCT-${ref}`,
      }),
    });
    expect(raised.status, await raised.clone().text()).to.equal(201);
    debt = (await raised.json()) as typeof debt;
    const notice = await nthMail(debtorEmail, 1);
    expect(notice.text).to.contain(`${production}${PORTAL_LINK_PATH}`);

    const before = {
      api: await profile.pidOf('apps:api-production'),
      worker: await profile.pidOf('apps:worker-lifecycle'),
    };
    expect(before.api).to.be.greaterThan(0);
    expect(before.worker).to.be.greaterThan(0);
    process.kill(before.api, 'SIGKILL');
    process.kill(before.worker, 'SIGKILL');
    await waitFor(
      async () => {
        const [api, worker] = [
          await profile.pidOf('apps:api-production'),
          await profile.pidOf('apps:worker-lifecycle'),
        ];
        return api > 0 && api !== before.api && worker > 0 && worker !== before.worker;
      },
      { what: 'supervisor to restart api-production and worker-lifecycle', timeoutMs: 60_000, intervalMs: 250 },
    );
    await waitFor(async () => (await profile.fetch(`${production}/healthz`).catch(() => undefined))?.status === 200, {
      what: 'the production host to answer through the proxy again',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  });

  it('the debtor verifies, accepts, agrees a plan and pays by card through Stripe; the receiver gets the events, signed', async () => {
    const notice = mailed.find((m) => m.to.some((t) => t.address === debtorEmail))!;
    const token = new RegExp(`${PORTAL_LINK_PATH}([A-Za-z0-9_-]{43})`).exec(notice.text)![1]!;
    portalToken = token;
    await browse(
      async (context) => {
        const page = await context.newPage();
        const status = await enterPortal(page, production, token, {
          accountReference: debt.externalAccountId,
          surname: 'Harris',
        });
        expect(status).to.equal(303);
        await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
        await shot(page, 'portal-debt');
        const cookies = await context.cookies(production);
        expect(cookies.length).to.be.greaterThan(0);
        for (const cookie of cookies) {
          expect(cookie.name, cookie.name).to.match(/^__Host-/);
          expect(cookie, cookie.name).to.include({ secure: true, httpOnly: true, path: '/' });
        }

        await page.getByRole('button', { name: 'I accept this debt' }).click();
        await page.getByText('You have accepted this debt.').first().waitFor();
        await shot(page, 'portal-accepted');
        await page.getByRole('link', { name: 'Set up a payment plan' }).click();
        await page.getByLabel('Number of payments').fill('3');
        await page.getByLabel('Every month').check();
        await page.getByRole('button', { name: 'Show me the schedule' }).click();
        await page.getByRole('heading', { name: 'Check your plan' }).waitFor();
        await shot(page, 'portal-plan-preview');
        await page.getByRole('button', { name: 'I agree to this plan' }).click();
        await page.getByText('Your payment plan is set up.').waitFor();
        await page.getByRole('link', { name: 'Make a payment' }).click();
        await page.getByRole('heading', { name: 'Make a payment' }).waitFor();
        expect(await page.getByLabel('Card number').count()).to.equal(0); // card details go to Stripe, never to us
        await shot(page, 'portal-pay');
        await page.getByRole('button', { name: 'Pay now' }).click();
        await page.getByRole('heading', { name: 'Confirm your card' }).waitFor();
        await shot(page, 'portal-pay-card-form');

        // Stripe's part: the card form confirms the PaymentIntent our API created on Stripe's API, and Stripe
        // reports the outcome by its signed webhook, to this host's public address.
        const intent = [...stripeApi.intents.values()].find((i) => i.metadata.debtId === debt.id)!;
        expect(intent.amount).to.equal(41683); // the first of three instalments of 1250.50 AUD
        const payload = stripeEvent('payment_intent.succeeded', { ...intent, status: 'succeeded' });
        const stripe = createStripeClient({ secretKey: new RedactedSecret(PROFILE_STRIPE.secretKey) });
        const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: PROFILE_STRIPE.webhookSecret });
        const ingest = await postStripeEvent(production, payload, signature, profile.fetch);
        expect(ingest.status).to.equal(200);

        await page.goto(`${production}/portal/pay/confirming?payment_intent=${intent.id}&redirect_status=succeeded`);
        await page.getByRole('heading', { name: 'Payment being processed' }).waitFor();
        await shot(page, 'portal-pay-confirming');
        await waitFor(
          async () => {
            await page.goto(`${production}/portal/debt`);
            return (await page.locator('main').innerText()).includes('833.67 AUD');
          },
          { what: 'the paid balance on the portal', timeoutMs: 60_000, intervalMs: 500 },
        );
        await shot(page, 'portal-paid');
      },
      { viewport: PHONE },
    );

    const types = ['debt.created', 'debt.accepted', 'plan.activated', 'payment.received'];
    const received = await waitFor(
      () => {
        const ours = receiver.requests.filter((r) => (r.body.data.debt as { id?: string } | undefined)?.id === debt.id);
        return types.every((t) => ours.some((r) => r.body.type === t)) && ours;
      },
      { what: 'the debt’s events at the https receiver', timeoutMs: 120_000, intervalMs: 250 },
    );
    for (const request of received) {
      expect(verifySignature(request.signature, request.rawBody, webhookSecret), request.body.type).to.deep.include({
        ok: true,
      });
    }
  });

  it('a placement uploaded through https is imported by worker-placements, which runs at a lower CPU priority', async () => {
    const prefix = `PP${run}`;
    const form = new FormData();
    const csv = [PLACEMENT_HEADER, ...goodRows(prefix, 3)].join('\n');
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'placement.csv');
    const uploaded = await profile.fetch(`${production}/v1/placements`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': randomUUID() },
      body: form,
    });
    expect(uploaded.status, await uploaded.clone().text()).to.equal(202);
    const { id } = (await uploaded.json()) as { id: string };
    const placement = await waitFor(
      async () => {
        const res = await profile.fetch(`${production}/v1/placements/${id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        const body = (await res.json()) as { status: string; imported: number };
        return body.status === 'Completed' && body;
      },
      { what: 'the placement to complete', timeoutMs: 120_000, intervalMs: 250 },
    );
    expect(placement.imported).to.equal(3);
    const worker = await profile.pidOf('apps:worker-placements');
    expect(worker).to.be.greaterThan(0);
    expect(new Set(threadNiceValues(worker)), 'nice of its threads').to.deep.equal(new Set([10]));
  });

  it('a document uploaded over HTTP/2, as a browser sends it, streams through the proxy whole: 3 MiB, past its upload window', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(3 * 1024 * 1024)]);
    // The form encoded by undici, as the placement's upload above is, then sent over HTTP/2 as one body.
    const form = new FormData();
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'statement.pdf');
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const authorization = `Bearer ${apiKey}`;
    const uploaded = await http2Request(`${production}/v1/debts/${debt.id}/documents`, {
      ca: profile.ca,
      method: 'POST',
      headers: { authorization, 'content-type': encoded.headers.get('content-type')! },
      body,
    });
    expect(uploaded.status, uploaded.body.toString()).to.equal(201);
    expect(uploaded.alpnProtocol, 'the protocol agreed by ALPN').to.equal('h2');
    expect(uploaded.headers['strict-transport-security']).to.equal('max-age=31536000; includeSubDomains');
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    const document = JSON.parse(uploaded.body.toString()) as { id: string; size: number; sha256: string };
    expect(document).to.include({ size: pdf.length, sha256 });
    const content = await http2Request(`${production}/v1/debts/${debt.id}/documents/${document.id}/content`, {
      ca: profile.ca,
      headers: { authorization },
    });
    expect(content.status).to.equal(200);
    expect(createHash('sha256').update(content.body).digest('hex')).to.equal(sha256);
  });

  it('the Temporal Web UI, through the proxy, finds the debt’s workflow by its DebtId search attribute', async () => {
    await browse(
      async (context) => {
        const page = await context.newPage();
        const query = encodeURIComponent(`DebtId="${debt.id}"`);
        await page.goto(`${profile.env.TEMPORAL_UI_URL}/namespaces/client-api-production/workflows?query=${query}`);
        await page.getByText(workflowIds.debt(debt.id)).first().waitFor({ timeout: 60_000 });
        await shot(page, 'temporal-ui-debt-workflow');
      },
      { javaScript: true },
    );
  });

  it('no log of the profile holds a secret that went through it: the key, the webhook secret, the portal link’s token', async () => {
    expect(portalToken, 'the portal test ran first').to.be.a('string');
    const logDir = profile.env.STAGE_LOG_DIR!;
    const files = await readdir(logDir);
    expect(files).to.include.members(['proxy.log', 'api-production.log']);
    for (const file of files) {
      const text = await readFile(path.join(logDir, file), 'utf8');
      for (const [what, secret] of Object.entries({ apiKey, webhookSecret, portalToken })) {
        expect(text.includes(secret), `${what} in logs/${file}`).to.equal(false);
      }
    }
  });

  it('every link in every email the profile sent is https on the public host', () => {
    expect(mailed.length).to.be.at.least(2); // the invitation, the debtor’s notice
    for (const message of mailed) {
      const links = `${message.text}\n${message.html ?? ''}`.match(/\bhttps?:\/\/[^\s"'<>)]+/g) ?? [];
      expect(links.length, message.subject).to.be.greaterThan(0);
      for (const link of links) {
        expect(new URL(link).origin, `${message.subject}: ${link}`).to.equal(production);
      }
    }
  });
});
