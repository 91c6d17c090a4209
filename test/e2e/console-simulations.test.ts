/**
 * The sandbox's simulations on a debt's page, and the developer's rules on the sandbox host, in Chromium with
 * JavaScript off against the real app, database, Redis, mail sink and lifecycle worker: accept → plan → pay (and a
 * failed payment, the timers advanced to a default, a dispute and its resolution) through the lifecycle's triggers,
 * seen on the debt's page, through the API and on the Events page; a refused move and a refused value said on the
 * page; a developer who mints test keys, sets the receiver, simulates and resets, but is refused the owner's and
 * admin's things, forged POSTs included; a viewer who may do none of it; axe-core on every new page.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page as BrowserPage } from 'playwright-core';
import { withBrowser } from '../support/browser';
import { CONSOLE_SHOTS, consoleBrowser, newStaffUser } from '../support/console-browser';
import { callerFor, type Caller, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';
import { signUpFromForm, startSandboxConsole, type SandboxConsole } from '../support/sandbox-console';
import { localWebhookConfig, localWebhookEnv } from '../support/webhooks';

type Page<T> = { data: T[] };
type Plan = { status: string; instalmentsPaid: number; instalmentCount: number };
type Transaction = { status: string; amount: number; processorReference: string };

describe('Console on the sandbox host: simulations on a debt’s page and the developer’s rules, JavaScript off', function () {
  this.timeout(240_000);
  let stack: SandboxConsole;
  const url = (path: string) => `${stack.server.baseUrl}${path}`;
  const { shot, noJs, signIn, forgedPost, seriousViolations } = consoleBrowser({
    baseUrl: () => stack.server.baseUrl,
    sink: () => stack.sink,
  });
  const newEmail = (who: string) => `${who}-${randomUUID()}@example.test`;

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    stack = await startSandboxConsole(localWebhookEnv(localWebhookConfig()));
  });
  after(async () => {
    await stack?.stop();
  });

  const debtOf = async (api: Caller, account: string) =>
    (await api<Page<Debt>>('GET', `/v1/debts?externalAccountId=${account}`)).body.data[0]!;
  const mainText = (page: BrowserPage) => page.locator('main').innerText();

  /** Clicks `button` in the simulation `form` (named by its heading) and returns the POST's status (303 when done). */
  async function simulate(page: BrowserPage, form: string, button: string): Promise<number> {
    const answered = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('form', { name: form }).getByRole('button', { name: button, exact: true }).click();
    const status = (await answered).status();
    await page.getByRole('heading', { name: 'Debt', level: 1 }).waitFor();
    return status;
  }

  it('runs accept → plan → pay and more from a debt’s page, seen through the API and on the Events page; refusals are said on the page', async () => {
    await withBrowser(async (browser) => {
      const { page, api, organizationId } = await signUpFromForm(await noJs(browser), stack, {
        email: newEmail('simulator'),
      });
      // The lifecycle refuses accept on a Disputed debt: said above the forms, under the API's 409.
      const disputed = await debtOf(api, 'ACCT-0005');
      await page.goto(url(`/console/debts/${disputed.id}`));
      expect(await simulate(page, 'The debtor accepts', 'Accept')).to.equal(409);
      const refusal = await page.getByRole('alert').innerText();
      expect(refusal)
        .to.contain('Accept was refused.')
        .and.to.contain('accept is not allowed while the debt is Disputed');
      await shot(page, 'sandbox-simulation-refused');
      expect((await api<Debt>('GET', `/v1/debts/${disputed.id}`)).body.status).to.equal('Disputed');

      const debt = await debtOf(api, 'ACCT-0001');
      expect(debt.status).to.equal('PendingAssignment');
      await page.goto(url('/console/debts?externalAccountId=ACCT-0001'));
      await page.getByRole('link', { name: 'ACCT-0001' }).click();
      await page.getByRole('heading', { name: 'Simulations' }).waitFor();
      await shot(page, 'sandbox-debt-simulations');

      expect(await simulate(page, 'The debtor accepts', 'Accept')).to.equal(303);
      expect(await page.getByRole('status').innerText()).to.equal(
        'The debtor accepted the debt. The debt is now Accepted.',
      );

      // A value the API's schema refuses is said with the form's label, and the value stays to be fixed.
      await page.getByLabel('Instalments').fill('three');
      expect(await simulate(page, 'The debtor agrees a plan', 'Agree the plan')).to.equal(400);
      expect(await page.getByRole('alert').innerText()).to.contain('Instalments must be a whole number');
      expect(await page.getByLabel('Instalments').inputValue()).to.equal('three');
      expect(await page.getByLabel('Instalments').getAttribute('aria-invalid')).to.equal('true');
      await shot(page, 'sandbox-simulation-invalid');

      await page.getByLabel('Instalments').fill('4');
      await page.getByLabel('Frequency').selectOption('Monthly');
      expect(await simulate(page, 'The debtor agrees a plan', 'Agree the plan')).to.equal(303);
      expect(await page.getByRole('status').innerText()).to.contain('The debt is now Active.');
      const planned = (await api<Debt & { plan: Plan }>('GET', `/v1/debts/${debt.id}`)).body;
      expect(planned.plan).to.include({ status: 'Active', instalmentCount: 4, instalmentsPaid: 0 });

      // The amount offered is the instalment; the API's amount rules apply (no more decimals than AUD has).
      expect(await page.getByLabel('Amount (AUD)').inputValue()).to.equal('312.5');
      await page.getByLabel('Amount (AUD)').fill('12.345');
      expect(await simulate(page, 'The processor reports a payment', 'Pay')).to.equal(400);
      expect(await page.getByRole('alert').innerText()).to.match(/^Report a payment was refused\.[\s\S]*Amount /);
      await page.getByLabel('Amount (AUD)').fill('312.5');
      expect(await simulate(page, 'The processor reports a payment', 'Pay')).to.equal(303);
      expect(await mainText(page)).to.contain('1 of 4');
      await page.getByLabel('Processor reference (optional)').fill('pi_console_declined');
      expect(await simulate(page, 'The processor reports a payment', 'Fail the payment')).to.equal(303);
      const transactions = (await api<Page<Transaction>>('GET', `/v1/transactions?debtId=${debt.id}`)).body.data;
      expect(transactions.map((t) => [t.status, t.amount])).to.deep.include.members([
        ['Succeeded', 312.5],
        ['Failed', 312.5],
      ]);
      expect(transactions.find((t) => t.status === 'Failed')!.processorReference).to.equal('pi_console_declined');
      expect((await api<Debt>('GET', `/v1/debts/${debt.id}`)).body.outstandingPrincipal).to.equal(937.5);

      // Time passes: the second instalment's due date, then its grace period's end defaults the plan.
      expect(await simulate(page, 'Time passes', 'Advance to the next timer')).to.equal(303);
      expect(await page.getByRole('status').innerText()).to.equal(
        'Instalment 2 is past its due date (late; no event). The debt is now Active.',
      );
      expect(await simulate(page, 'Time passes', 'Advance to the next timer')).to.equal(303);
      expect(await page.getByRole('status').innerText()).to.equal(
        'Instalment 2’s grace period ended: the plan defaulted. The debt is now InArrears.',
      );
      await shot(page, 'sandbox-simulation-done');

      // A dispute with its reason, and its resolution.
      await page.getByLabel('Reason').fill('I never had this account');
      expect(await simulate(page, 'The debtor disputes', 'Dispute')).to.equal(303);
      expect(await mainText(page)).to.contain('I never had this account');
      await page.getByLabel('Rejected (PendingAssignment again)').check();
      expect(await simulate(page, 'Operations resolve the dispute', 'Resolve')).to.equal(303);
      expect((await api<Debt>('GET', `/v1/debts/${debt.id}`)).body).to.include({
        status: 'PendingAssignment',
        disputeOutcome: 'Rejected',
      });

      await page.getByRole('link', { name: 'Events', exact: true }).click();
      await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
      const events = await mainText(page);
      for (const type of ['debt.accepted', 'plan.activated', 'payment.received', 'plan.defaulted', 'debt.disputed']) {
        expect(events, type).to.contain(type);
      }
      await shot(page, 'sandbox-events');
      const caused = await testDb()('events')
        .where({ organization_id: organizationId })
        .whereRaw(`data->'debt'->>'id' = ?`, [debt.id])
        .whereIn('type', ['debt.accepted', 'plan.activated', 'payment.received', 'debt.disputed'])
        .select('type', 'request_id');
      expect(caused).to.have.length(4);
      for (const event of caused) expect(event.request_id, event.type).to.match(/^req_/);
      const apiEvents = (await api<Page<{ type: string }>>('GET', '/v1/events?limit=50')).body.data.map((e) => e.type);
      expect(apiEvents).to.include.members(['debt.accepted', 'plan.activated', 'payment.received', 'plan.defaulted']);
      const audit = await testDb()('audit_log')
        .where({ organization_id: organizationId, action: 'debt.simulated' })
        .orderBy('created_at')
        .select('details');
      expect(audit.map((e) => e.details.simulation)).to.deep.equal([
        'accept',
        'plan',
        'payment',
        'payment',
        'advance',
        'advance',
        'dispute',
        'resolve',
      ]);
    });
  });

  it('lets a developer mint test keys, set the receiver, simulate and reset, and refuses them the owner’s things, forged POSTs too', async () => {
    await withBrowser(async (browser) => {
      const owner = await signUpFromForm(await noJs(browser), stack, { email: newEmail('owner') });
      const developerEmail = await newStaffUser(owner.organizationId, 'developer');
      const page = await signIn(await noJs(browser), developerEmail);
      expect(await page.locator('header').innerText()).to.contain(`${developerEmail} (developer)`);

      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Developer CI');
      await page.getByLabel('debts:read').check();
      await page.getByRole('button', { name: 'Mint key' }).click();
      const minted = (await page.locator('#secret').innerText()).trim();
      expect(minted).to.match(/^ak_test_/);
      const developerApi = callerFor(stack.server.baseUrl, { headers: { authorization: `Bearer ${minted}` } });
      expect((await developerApi('GET', '/v1/debts')).status).to.equal(200);
      await shot(page, 'sandbox-developer-key');

      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('textbox', { name: 'Receiver URL' }).fill('http://127.0.0.1:9/hooks');
      await page.getByRole('button', { name: 'Save URL' }).click();
      expect(await mainText(page)).to.match(/whsec_/);

      const debt = await debtOf(owner.api, 'ACCT-0001');
      await page.goto(url(`/console/debts/${debt.id}`));
      expect(await simulate(page, 'The debtor accepts', 'Accept')).to.equal(303);
      expect((await owner.api<Debt>('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('Accepted');

      // Not the developer's: the team, the audit log, branding and recall are the owner's and admin's.
      await page.goto(url('/console/team'));
      expect(await page.getByRole('button', { name: 'Send invitation' }).count()).to.equal(0);
      expect((await page.goto(url('/console/audit')))?.status()).to.equal(403);
      await page.goto(url('/console/branding'));
      expect(await page.getByRole('button', { name: 'Save branding' }).count()).to.equal(0);
      await page.goto(url(`/console/debts/${debt.id}`));
      expect(await page.getByRole('link', { name: 'Recall this debt' }).count()).to.equal(0);
      await shot(page, 'sandbox-developer-debt');
      const _csrf = await page.locator('input[name=_csrf]').first().inputValue();
      const origin = { origin: stack.server.baseUrl };
      const ownersOnly: [string, Record<string, string>][] = [
        ['/console/team', { _csrf, email: newEmail('smuggled'), role: 'owner' }],
        ['/console/branding', { _csrf, intent: 'save', primaryColor: '#000000', 'saved.primaryColor': '' }],
        [`/console/debts/${debt.id}/recall`, { _csrf }],
      ];
      for (const [path, form] of ownersOnly) {
        expect((await forgedPost(page, path, form, origin)).status, path).to.equal(403);
      }
      // Even the developer's own actions, forged from another site or without the form's token.
      const acceptPath = `/console/debts/${debt.id}/simulate/accept`;
      const crossSite = await forgedPost(page, acceptPath, { _csrf }, { 'sec-fetch-site': 'cross-site' });
      expect(crossSite.status).to.equal(403);
      expect((await forgedPost(page, '/console/sandbox/reset', {}, origin)).status).to.equal(403);
      expect((await owner.api<Debt>('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('Accepted');
      expect(await testDb()('staff_users').where({ organization_id: owner.organizationId })).to.have.length(2);

      // The reset is the developer's too.
      await page.goto(url('/console/sandbox/reset'));
      await page.getByRole('button', { name: 'Reset sandbox now' }).click();
      await page.getByRole('heading', { name: 'Sandbox', level: 1 }).waitFor();
      const actions = await testDb()('audit_log')
        .where({ organization_id: owner.organizationId, actor_email: developerEmail })
        .orderBy('created_at')
        .pluck('action');
      expect(actions).to.deep.equal(['key.minted', 'webhook.configured', 'debt.simulated', 'sandbox.reset_requested']);
    });
  });

  it('refuses a viewer the simulations and the reset, on the page and forged', async () => {
    await withBrowser(async (browser) => {
      const owner = await signUpFromForm(await noJs(browser), stack, { email: newEmail('owner') });
      const viewerEmail = await newStaffUser(owner.organizationId, 'viewer');
      const page = await signIn(await noJs(browser), viewerEmail);
      const debt = await debtOf(owner.api, 'ACCT-0001');
      await page.goto(url(`/console/debts/${debt.id}`));
      expect(await mainText(page)).to.contain('Only an owner, an admin or a developer can run simulations.');
      expect(await page.getByRole('button', { name: 'Accept' }).count()).to.equal(0);
      await shot(page, 'sandbox-viewer-debt');
      await page.goto(url('/console/sandbox'));
      expect(await page.getByRole('link', { name: 'Reset sandbox now' }).count()).to.equal(0);
      expect((await page.goto(url('/console/sandbox/reset')))?.status()).to.equal(403);
      const _csrf = await page.locator('input[name=_csrf]').first().inputValue();
      const origin = { origin: stack.server.baseUrl };
      for (const path of [`/console/debts/${debt.id}/simulate/accept`, '/console/sandbox/reset']) {
        const res = await forgedPost(page, path, { _csrf }, origin);
        expect(res.status, path).to.equal(403);
        expect(await res.text(), path).to.contain('Only an owner, an admin or a developer');
      }
      expect((await owner.api<Debt>('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('PendingAssignment');
      expect(
        await testDb()('organizations').where({ id: owner.organizationId }).first('sandbox_reset_requested_at'),
      ).to.deep.equal({ sandbox_reset_requested_at: null });
    });
  });

  it('axe-core finds no serious or critical violation on the sandbox pages', async () => {
    await withBrowser(async (browser) => {
      const context = await browser.newContext({ bypassCSP: true, javaScriptEnabled: true });
      const anonymous = await context.newPage();
      await anonymous.goto(url('/console/sign-up'));
      const refused = await context.newPage();
      await refused.goto(url('/console/sign-up'));
      await refused.getByLabel('Organisation name').fill('x'.repeat(201));
      await refused.getByLabel('Email address').fill(newEmail('too-long'));
      await refused.getByRole('button', { name: 'Create my sandbox' }).click();
      await refused.getByRole('alert').waitFor();
      const { page: welcome, api } = await signUpFromForm(context, stack, { email: newEmail('axe') });
      const disputed = await debtOf(api, 'ACCT-0005');
      const pages = [anonymous, refused, welcome];
      for (const path of ['/console/sandbox', '/console/sandbox/reset', `/console/debts/${disputed.id}`]) {
        const p = await context.newPage();
        await p.goto(url(path));
        pages.push(p);
      }
      const refusal = await context.newPage();
      await refusal.goto(url(`/console/debts/${disputed.id}`));
      await simulate(refusal, 'The debtor accepts', 'Accept');
      await refusal.getByRole('alert').waitFor();
      pages.push(refusal);
      for (const p of pages) expect(await seriousViolations(p), p.url()).to.deep.equal([]);
    });
  });
});
