/**
 * The sandbox host's console in Chromium with JavaScript off, against the real app, database, Redis, mail sink, the
 * lifecycle worker and the sandbox reset worker: sign up from the form (the seeded tenant, its owner signed in, the
 * first test key shown once and working against the API), the same limit per address as the API's sign-up, documents
 * downloaded from a debt's page (another tenant's a 404 page), "Reset sandbox now" after a confirmation with the
 * status as `GET /v1/sandbox/reset` reports it, and none of it on the production host.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { expect } from 'chai';
import { startTestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { CONSOLE_SHOTS, consoleBrowser, shotAt } from '../support/console-browser';
import { raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';
import { forgetSignups, signUp } from '../support/sandbox';
import { signUpFromForm, startSandboxConsole, type SandboxConsole } from '../support/sandbox-console';
import { waitFor } from '../support/wait';

type Page<T> = { data: T[] };
type Document = { id: string; fileName: string; sha256: string };

describe('Console on the sandbox host: sign-up, documents and Reset sandbox now in a real browser with JavaScript off', function () {
  this.timeout(180_000);
  let stack: SandboxConsole;
  const url = (path: string) => `${stack.server.baseUrl}${path}`;
  const { shot, noJs, forgedPost } = consoleBrowser({
    baseUrl: () => stack.server.baseUrl,
    sink: () => stack.sink,
  });
  const newEmail = (who: string) => `${who}-${randomUUID()}@example.test`;

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    stack = await startSandboxConsole();
  });
  after(async () => {
    await stack?.stop();
  });

  it('signs up from the form: the seeded tenant, its owner signed in, the first test key shown once and working', async () => {
    const email = newEmail('founder');
    await withBrowser(async (browser) => {
      const context = await noJs(browser);
      const start = await context.newPage();
      await start.goto(url('/console/sign-in'));
      await start.getByRole('link', { name: 'Sign up' }).click();
      await start.getByRole('heading', { name: 'Sign up for the sandbox' }).waitFor();
      await shot(start, 'sandbox-sign-up');

      const { page, key, api, organizationId } = await signUpFromForm(context, stack, {
        organizationName: 'Acme Test Lending',
        email,
      });
      expect(await page.locator('header').innerText()).to.contain(`${email} (owner)`);
      expect(await page.locator('main').innerText()).to.contain('Acme Test Lending');
      await shot(page, 'sandbox-signed-up');

      const debts = await api<Page<Debt>>('GET', '/v1/debts?limit=50');
      expect(debts.status).to.equal(200);
      expect(debts.body.data).to.have.length(8);
      expect((await api<{ name: string; mode: string }>('GET', '/v1/organization')).body).to.include({
        id: organizationId,
        name: 'Acme Test Lending',
        mode: 'sandbox',
      });

      // Shown once: the keys page names its prefix, never the secret.
      await page.goto(url('/console/keys'));
      const keys = await page.locator('main').innerText();
      expect(keys).to.contain(key.slice(0, 16)).and.not.to.contain(key);
      const entries = await testDb()('audit_log').where({ organization_id: organizationId }).select('*');
      expect(entries.map((e) => [e.action, e.actor_email])).to.deep.equal([['sandbox.signed_up', email]]);
      expect(JSON.stringify(entries)).not.to.contain(key);

      // The same address again: the same answer as for any address, nothing is created, and the mail says why,
      // with a sign-in link.
      const again = await (await noJs(browser)).newPage();
      await again.goto(url('/console/sign-up'));
      await again.getByLabel('Organisation name').fill('Second Try');
      await again.getByLabel('Email address').fill(email.toUpperCase());
      const answered = again.waitForResponse((r) => r.request().method() === 'POST');
      await again.getByRole('button', { name: 'Create my sandbox' }).click();
      expect((await answered).status()).to.equal(200);
      await again.getByRole('heading', { name: 'Check your email' }).waitFor();
      expect(await again.locator('main').innerText()).not.to.contain('already');
      await shot(again, 'sandbox-sign-up-check-email');
      const told = await stack.sink.nthMailTo(email, 2);
      expect(told.subject).to.equal('You already have a console account');
      expect(told.text).to.contain('/console/sign-in/link?token=');
      expect(await testDb()('organizations').where({ name: 'Second Try' }).select('id')).to.deep.equal([]);
      await again.goto(url('/console/sign-up'));

      // The anonymous form's CSRF checks, as sign-in's: another site's POST, and a POST without the form's token.
      const form = { organizationName: 'Forged', email: newEmail('forged') };
      const csrf = await again.locator('input[name=_csrf]').inputValue();
      const crossSite = await forgedPost(
        again,
        '/console/sign-up',
        { ...form, _csrf: csrf },
        {
          'sec-fetch-site': 'cross-site',
        },
      );
      expect(crossSite.status).to.equal(403);
      const tokenless = await forgedPost(again, '/console/sign-up', form, { origin: stack.server.baseUrl });
      expect(tokenless.status).to.equal(403);
      expect(await stack.sink.mailTo(form.email)).to.deep.equal([]);
      expect(await testDb()('organizations').where({ name: 'Forged' }).select('id')).to.deep.equal([]);
    });
  });

  it('downloads a debt’s document through the session, and shows another organisation’s document as a 404 page', async () => {
    const other = await signUp(stack.server.baseUrl);
    await withBrowser(async (browser) => {
      const context = await noJs(browser);
      const { page, api } = await signUpFromForm(context, stack, { email: newEmail('docs') });
      const debt = (await api<Page<Debt>>('GET', '/v1/debts?externalAccountId=ACCT-0002')).body.data[0]!;
      const [document] = (await api<Page<Document>>('GET', `/v1/debts/${debt.id}/documents`)).body.data;
      await page.goto(url(`/console/debts/${debt.id}`));
      const link = page.getByRole('link', { name: document!.fileName });
      const downloading = page.waitForEvent('download');
      await link.click();
      const download = await downloading;
      expect(download.suggestedFilename()).to.equal(document!.fileName);
      const bytes = await readFile(await download.path());
      expect(createHash('sha256').update(bytes).digest('hex')).to.equal(document!.sha256);
      expect(bytes.subarray(0, 5).toString('latin1')).to.equal('%PDF-');

      const href = await link.getAttribute('href');
      const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
      const res = await fetch(url(href!), { headers: { cookie: cookies } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/pdf');
      expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="agreement-ACCT-0002\.pdf"/);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('cache-control')).to.equal('private, no-store');
      // Signed out, the link is the sign-in page.
      expect((await fetch(url(href!), { redirect: 'manual' })).status).to.equal(302);

      const foreignDebt = (await other.api<Page<Debt>>('GET', '/v1/debts?externalAccountId=ACCT-0002')).body.data[0]!;
      const foreignDoc = (await other.api<Page<Document>>('GET', `/v1/debts/${foreignDebt.id}/documents`)).body
        .data[0]!;
      for (const path of [
        `/console/debts/${foreignDebt.id}/documents/${foreignDoc.id}/content`,
        `/console/debts/${debt.id}/documents/${foreignDoc.id}/content`,
        `/console/debts/${debt.id}/documents/not-an-id/content`,
      ]) {
        const answer = await page.goto(url(path));
        expect(answer?.status(), path).to.equal(404);
        expect(await page.getByRole('heading', { level: 1 }).innerText(), path).to.match(/not found/i);
      }
      await shot(page, 'document-not-found');
    });
  });

  it('resets the sandbox now after a confirmation, showing where the reset stands as GET /v1/sandbox/reset does', async () => {
    const email = newEmail('resetter');
    await withBrowser(async (browser) => {
      const { page, api, organizationId } = await signUpFromForm(await noJs(browser), stack, {
        email,
      });
      const extra = await raiseDebt(api, { clientReference: 'WIPED-BY-RESET' });
      await page.getByRole('navigation').getByRole('link', { name: 'Sandbox', exact: true }).click();
      await page.getByRole('heading', { name: 'Sandbox', level: 1 }).waitFor();
      const before = (await api<{ status: string; lastResetAt: string | null }>('GET', '/v1/sandbox/reset')).body;
      expect(before).to.include({ status: 'Scheduled', lastResetAt: null });
      const shown = await page.locator('main').innerText();
      expect(shown).to.contain('Scheduled').and.to.contain('Never');
      await shot(page, 'sandbox');

      expect((await api<Debt>('GET', `/v1/debts/${extra.id}`)).status).to.equal(200); // nothing yet
      await page.getByRole('button', { name: 'Reset sandbox now' }).click(); // a POST from the page itself
      await page.getByRole('heading', { name: 'Sandbox', level: 1 }).waitFor();
      expect(new URL(page.url()).search).to.equal('?reset=1');
      expect(await page.getByRole('status').innerText()).to.match(/Your reset is under way|Your test data was reset/);
      await shot(page, 'sandbox-reset-requested');
      // Under way, the page reloads itself (a meta refresh, JavaScript off) until the reset is done: no reload here.
      await page.getByText('Your test data was reset.').waitFor({ timeout: 30_000 });
      expect(await page.locator('meta[http-equiv=refresh]').count()).to.equal(0);

      const after = await waitFor(
        async () => {
          const status = (await api<{ status: string; lastResetAt: string | null }>('GET', '/v1/sandbox/reset')).body;
          return status.status === 'Scheduled' && status.lastResetAt !== null ? status : undefined;
        },
        { what: 'the reset to be done' },
      );
      const done = await page.locator('main').innerText();
      expect(done).to.contain('Your test data was reset.').and.to.contain('Scheduled');
      expect(done).to.contain(after.lastResetAt!.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC'));
      await shotAt(page, 'sandbox-reset-done');
      expect((await api<Debt>('GET', `/v1/debts/${extra.id}`)).status).to.equal(404);
      expect((await api<Page<Debt>>('GET', '/v1/debts?limit=50')).body.data).to.have.length(8);
      const entries = await testDb()('audit_log').where({ organization_id: organizationId }).orderBy('created_at');
      expect(entries.map((e) => [e.action, e.actor_email])).to.deep.equal([
        ['sandbox.signed_up', email],
        ['sandbox.reset_requested', email],
      ]);
      // The team and the session outlive the reset.
      expect(await page.locator('header').innerText()).to.contain(`${email} (owner)`);
    });
  });

  it('counts form and API sign-ups in one limit per address, and refuses past it with the rate-limit page', async () => {
    const limited = await startSandboxConsole({ SANDBOX_SIGNUPS_PER_HOUR: '2' });
    await forgetSignups();
    try {
      await signUp(limited.server.baseUrl); // the API's
      await withBrowser(async (browser) => {
        const context = await noJs(browser);
        await signUpFromForm(context, limited, { email: newEmail('limited') });
        const page = await (await noJs(browser)).newPage();
        await page.goto(`${limited.server.baseUrl}/console/sign-up`);
        await page.getByLabel('Email address').fill(newEmail('over'));
        const refused = page.waitForResponse((r) => r.request().method() === 'POST');
        await page.getByRole('button', { name: 'Create my sandbox' }).click();
        const answer = await refused;
        expect(answer.status()).to.equal(429);
        expect(Number(answer.headers()['retry-after'])).to.be.greaterThan(0);
        expect(await page.locator('main').innerText()).to.contain('Too many sandbox sign-ups from your address');
        await shot(page, 'sandbox-sign-up-limited');
      });
      const api = await fetch(`${limited.server.baseUrl}/sandbox/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(api.status).to.equal(429);
    } finally {
      await forgetSignups();
      await limited.stop();
    }
  });

  it('has no sign-up, Sandbox page or simulations on the production host', async () => {
    const production = await startTestServer({ mode: 'production' });
    try {
      for (const path of ['/console/sign-up', '/console/sandbox', '/console/sandbox/reset']) {
        const res = await fetch(`${production.baseUrl}${path}`, { redirect: 'manual' });
        expect(res.status, path).to.equal(404);
      }
      const res = await fetch(`${production.baseUrl}/console/sign-in`);
      expect(await res.text()).not.to.contain('/console/sign-up');
    } finally {
      await production.close();
    }
  });
});
