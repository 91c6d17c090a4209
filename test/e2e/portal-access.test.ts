/**
 * Who gets into the debtor portal, and what they see: the second factor's limits per link and per address, one
 * answer for a wrong answer, an unknown link and a revoked one, no way from one debt or tenant into another, a
 * session ended by revoking its link, CSRF checks and cookie flags, branding changed by the API on the next page
 * load (with the readable fallback), and the console's side: the plan rules page (owners and admins) bounding the
 * plan builder, and the debtor's circumstances on the debt's page. Chromium on a phone viewport; screenshots in
 * test-artifacts/portal/.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createOrganization } from '../../core/access/organizations';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { issuePortalLink, PORTAL_LINK_PATH, revokePortalLink } from '../../core/portal/links';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { consoleBrowser, newStaffUser, seriousAxeViolations } from '../support/console-browser';
import { callerFor, type Caller } from '../support/debt-api';
import { startMailSink, type MailSink } from '../support/mail-sink';
import {
  clearPortalTries,
  debtWithLink,
  enterAs,
  enterPortal,
  phone,
  portalShot,
  PORTAL_SHOTS,
  type PortalDebt,
} from '../support/portal-browser';
import { testDb } from '../support/resources';
import { mintKey } from '../support/tenants';

describe('Debtor portal: getting in, tenancy, branding and the console’s side', function () {
  this.timeout(240_000);
  let sink: MailSink;
  let mailer: Mailer;
  let server: TestServer;
  const url = (path: string) => `${server.baseUrl}${path}`;
  const consolePages = consoleBrowser({ baseUrl: () => server.baseUrl, sink: () => sink });

  before(async () => {
    await mkdir(PORTAL_SHOTS, { recursive: true });
    await clearPortalTries();
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    server = await startTestServer({
      deps: { mailer },
      env: { SIGN_IN_REQUESTS_PER_HOUR: '1000', SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000' },
    });
  });
  afterEach(clearPortalTries);
  after(async () => {
    await server?.close();
    mailer?.close();
    await sink?.stop();
  });

  async function newTenant(name: string): Promise<{ orgId: string; api: Caller }> {
    const org = await createOrganization(testDb(), { name, mode: 'production' });
    return { orgId: org.id, api: callerFor(server.baseUrl, await mintKey(org.id)) };
  }

  const answerOf = (link: PortalDebt, surname = 'Harris') => ({
    accountReference: link.debt.externalAccountId,
    surname,
  });
  const mainText = (page: Page) => page.locator('main').innerText();

  it('answers a wrong answer, an unknown link and a revoked link alike, and stops a link after five wrong answers', async () => {
    const { orgId, api } = await newTenant('Dune Bank');
    const link = await debtWithLink(api, orgId);
    const revoked = await debtWithLink(api, orgId);
    await revokePortalLink(testDb(), { organizationId: orgId, debtId: revoked.debt.id });
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, true)).newPage();
      expect(await enterPortal(page, server.baseUrl, link.token, answerOf(link, 'Harrison'))).to.equal(400);
      const wrong = await mainText(page);
      expect(wrong).to.contain('Those details do not match this link.');
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
      await portalShot(page, 'verify-failed');

      const unknown = randomBytes(32).toString('base64url');
      expect(await enterPortal(page, server.baseUrl, unknown, answerOf(link))).to.equal(400);
      expect(await mainText(page)).to.equal(wrong.replace('Harrison', 'Harris'));
      expect(await enterPortal(page, server.baseUrl, revoked.token, answerOf(revoked))).to.equal(400);
      expect(await mainText(page)).to.equal(
        wrong.replace('Harrison', 'Harris').replace(link.debt.externalAccountId, revoked.debt.externalAccountId),
      );

      for (let i = 2; i <= 5; i++) {
        expect(await enterPortal(page, server.baseUrl, link.token, answerOf(link, `Wrong${i}`))).to.equal(400);
      }
      expect(await enterPortal(page, server.baseUrl, link.token, answerOf(link))).to.equal(429);
      expect(await mainText(page)).to.contain('too many tries with this link');
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
      await portalShot(page, 'too-many-tries');
      // The link's token is a secret: the request log names the link's shape, never the token.
      expect(server.rawLog()).to.contain('/portal/l/:secret').and.not.to.contain(link.token);
      expect(await page.context().cookies()).to.satisfy((cookies: { name: string }[]) =>
        cookies.every((c) => c.name !== 'portal_session'),
      );
    });
  });

  it('limits wrong answers per client address across links', async () => {
    const strict = await startTestServer({ env: { PORTAL_TRIES_PER_ADDRESS: '3', PORTAL_TRIES_PER_LINK: '100' } });
    try {
      const { orgId, api } = await newTenant('Elm Loans');
      const links: PortalDebt[] = [];
      for (let i = 0; i < 4; i++) links.push(await debtWithLink(api, orgId));
      await withBrowser(async (browser) => {
        const page = await (await phone(browser, false)).newPage();
        for (const link of links.slice(0, 3)) {
          expect(await enterPortal(page, strict.baseUrl, link.token, answerOf(link, 'Nobody'))).to.equal(400);
        }
        expect(await enterPortal(page, strict.baseUrl, links[3]!.token, answerOf(links[3]!))).to.equal(429);
      });
    } finally {
      await strict.close();
    }
  });

  it('a link of another debt or tenant shows nothing: only its own debt’s reference and surname open it', async () => {
    const a = await newTenant('Fir Capital');
    const b = await newTenant('Gum Tree Credit');
    const mine = await debtWithLink(a.api, a.orgId);
    const sibling = await debtWithLink(a.api, a.orgId);
    const foreign = await debtWithLink(b.api, b.orgId);
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, false)).newPage();
      // Another debt's link with this debt's answers, and another tenant's: the same refusal, nothing shown.
      expect(await enterPortal(page, server.baseUrl, sibling.token, answerOf(mine))).to.equal(400);
      expect(await enterPortal(page, server.baseUrl, foreign.token, answerOf(mine))).to.equal(400);
      const text = await page.locator('body').innerText();
      expect(text).not.to.contain('Gum Tree').and.not.to.contain('Fir Capital').and.not.to.contain('1,250.50');
      // The visit is its link's debt only: the account page of a session names that debt and tenant alone.
      await enterAs(page, server.baseUrl, foreign);
      const account = await page.locator('body').innerText();
      expect(account).to.contain('Gum Tree Credit').and.to.contain(foreign.debt.externalAccountId);
      expect(account).not.to.contain('Fir Capital').and.not.to.contain(mine.debt.externalAccountId);
    });
  });

  it('revoking a link ends its sessions and refuses it; a new link works; forged POSTs are refused; the cookie is HttpOnly and SameSite=Lax', async () => {
    const { orgId, api } = await newTenant('Hazel Finance');
    const link = await debtWithLink(api, orgId);
    await withBrowser(async (browser) => {
      const context = await phone(browser, true);
      const page = await context.newPage();
      await enterAs(page, server.baseUrl, link);
      const cookie = (await context.cookies()).find((c) => c.name === 'portal_session');
      expect(cookie).to.include({ httpOnly: true, sameSite: 'Lax', secure: false });

      const cookies = `portal_session=${cookie!.value}`;
      const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
        fetch(url(path), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies, ...headers },
          body: new URLSearchParams(form).toString(),
          redirect: 'manual',
        });
      expect((await post('/portal/accept', {})).status).to.equal(403);
      expect((await post('/portal/accept', { _csrf: 'x'.repeat(43) })).status).to.equal(403);
      const token = await page.locator('input[name=_csrf]').first().getAttribute('value');
      expect((await post('/portal/accept', { _csrf: token! }, { origin: 'https://evil.example' })).status).to.equal(
        403,
      );
      expect((await post('/portal/accept', { _csrf: token! }, { 'sec-fetch-site': 'cross-site' })).status).to.equal(
        403,
      );
      expect((await testDb()('debts').where({ id: link.debt.id }).first('status'))!.status).to.equal(
        'PendingAssignment',
      );

      await revokePortalLink(testDb(), { organizationId: orgId, debtId: link.debt.id });
      const ended = await page.goto(url('/portal/debt'));
      expect(ended?.status()).to.equal(401);
      expect(await mainText(page)).to.contain('Open that link again');
      expect(await page.locator('body').innerText()).not.to.contain('Hazel Finance');
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
      await portalShot(page, 'visit-ended');
      expect(await enterPortal(page, server.baseUrl, link.token, answerOf(link))).to.equal(400);

      const fresh = await issuePortalLink(testDb(), { organizationId: orgId, debtId: link.debt.id });
      await enterAs(page, server.baseUrl, { ...link, token: fresh.token });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'You have signed out' }).waitFor();
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
      await portalShot(page, 'signed-out');
      expect((await page.goto(url('/portal/debt')))?.status()).to.equal(401);
    });
  });

  it('wears the branding the API sets on the next page load, and a colour too light to read falls back to the default', async () => {
    const { orgId, api } = await newTenant('Ivy Lending');
    const link = await debtWithLink(api, orgId);
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, true)).newPage();
      await enterAs(page, server.baseUrl, link);
      const themeHref = () => page.locator('link[rel=stylesheet][href^="/portal/theme.css"]').getAttribute('href');
      expect(await themeHref()).to.equal('/portal/theme.css?p=1d4f91&s=2f6f4e');
      expect(await page.locator('img.portal-logo').count()).to.equal(0);

      const patched = await api('PATCH', '/v1/organization/branding', {
        primaryColor: '#7A1F5C',
        secondaryColor: '#C25E00',
        brandTagline: 'Fair, flexible repayments',
        logoUrl: 'https://cdn.ivy.example/logo.png',
        supportEmail: 'accounts@ivy.example',
        statementFooter: 'Ivy Lending Pty Ltd, ABN 12 345 678 901.',
      });
      expect(patched.status, patched.text).to.equal(200);
      await page.reload();
      expect(await themeHref()).to.equal('/portal/theme.css?p=7a1f5c&s=c25e00');
      expect(await (await fetch(url((await themeHref())!))).text()).to.contain('--brand:#7a1f5c');
      expect(await page.locator('img.portal-logo').getAttribute('src')).to.equal('https://cdn.ivy.example/logo.png');
      const text = await page.locator('body').innerText();
      expect(text).to.contain('Fair, flexible repayments').and.to.contain('accounts@ivy.example');
      expect(text).to.contain('ABN 12 345 678 901');
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
      await portalShot(page, 'debt-branded');

      expect((await api('PATCH', '/v1/organization/branding', { primaryColor: '#FFE600' })).status).to.equal(200);
      await page.reload();
      expect(await themeHref()).to.equal('/portal/theme.css?p=1d4f91&s=c25e00');
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
    });
  });

  it('the console’s Debtor portal page sets the plan rules (owners and admins) that bound the plan builder; the debt’s page shows the debtor’s circumstances', async () => {
    const { orgId, api } = await newTenant('Juniper Credit');
    const link = await debtWithLink(api, orgId);
    const admin = await newStaffUser(orgId, 'admin');
    const viewer = await newStaffUser(orgId, 'viewer');
    await withBrowser(async (browser) => {
      const staff = await consolePages.signIn(await browser.newContext({ bypassCSP: true }), admin);
      await staff.getByRole('link', { name: 'Debtor portal' }).click();
      await staff.getByRole('heading', { name: 'Debtor portal', level: 1 }).waitFor();
      expect(await staff.getByLabel('Most instalments').inputValue()).to.equal('12');
      await staff.getByLabel('Most instalments').fill('2');
      await staff.getByLabel('Weekly').uncheck();
      await staff.getByLabel('Fortnightly').uncheck();
      await staff.getByLabel('Smallest instalment (in the debt’s currency; 0 for none)').fill('50');
      await staff.getByLabel('First instalment due within (days from the day the plan is agreed)').fill('14');
      await staff.getByRole('button', { name: 'Save plan rules' }).click();
      await staff.getByText('Saved. Debtors building a plan').waitFor();
      expect(await seriousAxeViolations(staff)).to.deep.equal([]);
      await portalShot(staff, 'console-portal-settings');
      await staff.getByLabel('Monthly').uncheck();
      await staff.getByRole('button', { name: 'Save plan rules' }).click();
      await staff.getByText('The settings were not saved. Allow at least one frequency.').waitFor();
      const audit = await testDb()('audit_log').where({ organization_id: orgId, action: 'portal.plan_rules_changed' });
      expect(audit).to.have.length(1);
      expect(audit[0]!.details).to.include({ maxInstalments: 2, minInstalmentAmount: '50', firstDueWithinDays: 14 });

      const viewerPage = await consolePages.signIn(await browser.newContext(), viewer);
      await viewerPage.goto(url('/console/portal-settings'));
      expect(await viewerPage.getByLabel('Most instalments').isDisabled()).to.equal(true);
      const token = await viewerPage.locator('input[name=_csrf]').first().getAttribute('value');
      const forged = await consolePages.forgedPost(
        viewerPage,
        '/console/portal-settings',
        {
          _csrf: token!,
          maxInstalments: '520',
          frequencies: 'Weekly',
          minInstalmentAmount: '0',
          firstDueWithinDays: '1',
        },
        {},
      );
      expect(forged.status).to.equal(403);

      const page = await (await phone(browser, true)).newPage();
      await enterAs(page, server.baseUrl, link);
      await page.getByRole('button', { name: 'I accept this debt' }).click();
      await page.getByRole('link', { name: 'Set up a payment plan' }).click();
      const form = await mainText(page);
      expect(form).to.contain('Up to 2 payments, each at least 50.00 AUD');
      expect(await page.getByLabel('Every week').count()).to.equal(0);
      expect(await page.getByLabel('Number of payments').getAttribute('max')).to.equal('2');
      await portalShot(page, 'plan-bounded');
      // The server checks the rules itself: a form whose browser-side bound is taken away is refused all the same.
      await page.getByLabel('Number of payments').evaluate((input) => input.removeAttribute('max'));
      await page.getByLabel('Number of payments').fill('3');
      const refused = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Show me the schedule' }).click();
      expect((await refused).status()).to.equal(400);
      expect(await page.getByRole('alert').innerText()).to.contain('at most 2 instalments');
      await portalShot(page, 'plan-refused');

      await page.goto(url('/portal/circumstances'));
      await page.getByLabel('Your message').fill('My hours were cut; I can pay 50 a month from January.');
      await page.getByRole('button', { name: 'Send my message' }).click();
      await page.getByText('We have passed your message to the creditor.').waitFor();

      await staff.goto(url(`/console/debts/${link.debt.id}`));
      const circumstances = staff.locator('section[aria-labelledby=circumstances]');
      expect(await circumstances.innerText()).to.contain('My hours were cut; I can pay 50 a month from January.');
      expect(await seriousAxeViolations(staff)).to.deep.equal([]);
      await portalShot(staff, 'console-debt-circumstances');
    });
  });

  it('the page for a bare /portal and an unknown portal path say how to get in, without a session', async () => {
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, true)).newPage();
      await page.goto(url('/portal'));
      expect(await mainText(page)).to.contain('open the link in the email');
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
      await portalShot(page, 'portal-home');
      expect((await page.goto(url('/portal/nowhere')))?.status()).to.equal(404);
      expect((await page.goto(url(`${PORTAL_LINK_PATH}not-a-token`)))?.status()).to.equal(200);
    });
  });
});
