/**
 * The console's Branding, Debts and debtors, and Team pages in Chromium with JavaScript off, against the real app,
 * database, Redis, mail sink and debt lifecycle (a recall is the workflow's): each page's writes, read back through
 * the API or the database, a viewer refused every write, another organisation's objects a 404 page, axe-core on every
 * new page, and a screenshot of each (test-artifacts/console/).
 */
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { createOrganization, type Organization } from '../../core/access/organizations';
import { getPortalBranding } from '../../core/branding/portal-cache';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { recordTransaction } from '../../core/debts/transactions';
import { createStaffUser, type StaffRole } from '../../core/staff/staff-users';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { CONSOLE_SHOTS, consoleBrowser } from '../support/console-browser';
import { callerFor, raiseDebt, type Caller, type Debt } from '../support/debt-api';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { testDb, testRedis } from '../support/resources';
import { mintKey } from '../support/tenants';

describe('Console: Branding, Debts and debtors, Team in a real browser with JavaScript off', function () {
  this.timeout(180_000);
  let sink: MailSink;
  let mailer: Mailer;
  let server: TestServer;
  const { shot, noJs, signIn, forgedPost, isSignedOut, seriousViolations } = consoleBrowser({
    baseUrl: () => server.baseUrl,
    sink: () => sink,
  });
  const url = (path: string) => `${server.baseUrl}${path}`;

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    server = await startTestServer({
      deps: { mailer },
      env: { SIGN_IN_REQUESTS_PER_HOUR: '1000', SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000' },
    });
  });
  after(async () => {
    await server.close();
    mailer.close();
    await sink.stop();
  });

  async function newOrg(name = 'Acme Lending'): Promise<{ org: Organization; api: Caller }> {
    const org = await createOrganization(testDb(), { name, mode: 'production' });
    return { org, api: callerFor(server.baseUrl, await mintKey(org.id)) };
  }

  async function newUser(org: Organization, role: StaffRole) {
    const email = `${role}-${randomUUID()}@example.test`;
    const user = await createStaffUser(testDb(), org.id, { email, role });
    return { email, id: user.id };
  }

  const audit = (org: Organization) =>
    testDb()('audit_log').where({ organization_id: org.id }).orderBy('created_at').select('*');

  it('saves branding from the page (read back by the API and the portal cache), previews without saving, and shows a bad colour on the form', async () => {
    const { org, api } = await newOrg();
    const admin = await newUser(org, 'admin');
    await getPortalBranding(testDb(), testRedis(), org.id); // the portal's cache holds the old (empty) branding
    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), admin.email);
      await page.getByRole('link', { name: 'Branding' }).click();
      await page.getByRole('heading', { name: 'Branding', level: 1 }).waitFor();
      await shot(page, 'branding');

      await page.getByLabel('Primary colour', { exact: true }).fill('#12AB34');
      await page.getByLabel('Secondary colour', { exact: true }).fill('#F0A500');
      await page.getByLabel('Tagline', { exact: true }).fill('Fair, flexible repayments');
      await page.getByLabel('Support email', { exact: true }).fill('help@acme.example');
      await page.getByLabel('Support phone', { exact: true }).fill('+61290000000');
      await page.getByLabel('Logo URL', { exact: true }).fill('https://cdn.acme.example/logo.svg');
      await page.getByRole('button', { name: 'Preview without saving' }).click();
      await page.getByText('With the values you entered, not saved yet.').waitFor();
      expect(await page.locator('.portal-preview').innerText()).to.contain('Fair, flexible repayments');
      const css = await page.locator('main link[rel=stylesheet]').getAttribute('href');
      expect(css).to.equal('/console/branding/preview.css?primary=12ab34&secondary=f0a500');
      expect(await (await fetch(url(css!))).text()).to.contain('--portal-primary:#12ab34');
      await shot(page, 'branding-preview');
      expect((await api('GET', '/v1/organization/branding')).body.primaryColor).to.equal(null);

      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByText('Debtor portals show the new branding now.').waitFor();
      const saved = (await api('GET', '/v1/organization/branding')).body;
      expect(saved).to.include({
        primaryColor: '#12AB34',
        secondaryColor: '#F0A500',
        brandTagline: 'Fair, flexible repayments',
        supportEmail: 'help@acme.example',
        supportPhone: '+61290000000',
        logoUrl: 'https://cdn.acme.example/logo.svg',
        faviconUrl: null,
      });
      expect((await getPortalBranding(testDb(), testRedis(), org.id)).primaryColor).to.equal('#12AB34');
      await shot(page, 'branding-saved');

      // An emptied field clears it; a field left alone is not sent (merge).
      await page.getByLabel('Tagline', { exact: true }).fill('');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByText('Saved: Tagline.').waitFor();
      expect((await api('GET', '/v1/organization/branding')).body).to.include({
        brandTagline: null,
        primaryColor: '#12AB34',
      });

      await page.getByLabel('Primary colour', { exact: true }).fill('blue');
      const refused = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Save branding' }).click();
      expect((await refused).status()).to.equal(400);
      const alert = await page.getByRole('alert').innerText();
      expect(alert)
        .to.contain('The branding was not saved.')
        .and.to.contain('Primary colour must be a #RRGGBB hex colour');
      expect(await page.getByLabel('Primary colour', { exact: true }).inputValue()).to.equal('blue');
      expect(await page.getByLabel('Primary colour', { exact: true }).getAttribute('aria-invalid')).to.equal('true');
      await shot(page, 'branding-refused');
      expect((await api('GET', '/v1/organization/branding')).body.primaryColor).to.equal('#12AB34');
    });
    const entries = await audit(org);
    expect(entries.map((e) => e.action)).to.deep.equal(['branding.changed', 'branding.changed']);
    expect(entries[0]!.details.fields).to.have.members([
      'primaryColor',
      'secondaryColor',
      'logoUrl',
      'brandTagline',
      'supportEmail',
      'supportPhone',
    ]);
    expect(entries[1]!.details).to.deep.equal({ fields: ['brandTagline'] });
    expect(entries[0]!.actor_email).to.equal(admin.email);
  });

  it('lists debts by the API’s filters with cursor pages, shows a debt and its debtor, and recalls it after a confirmation', async () => {
    const { org, api } = await newOrg();
    const admin = await newUser(org, 'admin');
    const target = await raiseDebt(api, {
      clientReference: 'INV-7001',
      metadata: { crmId: 'C-88213', region: 'NSW' },
    });
    const disputed = await raiseDebt(api, { clientReference: 'INV-7002', metadata: { crmId: 'C-1' } });
    await testDb()('debts')
      .where({ id: disputed.id })
      .update({ status: 'Disputed', dispute_reason: 'Not my account', dispute_outcome: null });
    // An active plan with one instalment paid: the recall cancels the plan (as PATCH status=Closed does).
    await testDb()('debts').where({ id: target.id }).update({
      status: 'Active',
      outstanding_principal: '1000.5',
      plan_status: 'Active',
      plan_instalment_amount: '250',
      plan_frequency: 'Monthly',
      plan_instalment_count: 5,
      plan_instalments_paid: 1,
      plan_next_due_date: '2027-01-15',
    });
    await recordTransaction(testDb(), org.id, {
      debtId: target.id,
      direction: 'Inbound',
      status: 'Succeeded',
      type: 'Payment',
      amount: '250',
      processorReference: 'pi_console_1',
    });
    for (let i = 0; i < 52; i++) await raiseDebt(api, { clientReference: `BULK-${i}` });

    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), admin.email);
      await page.getByRole('link', { name: 'Debts', exact: true }).click();
      await page.getByRole('heading', { name: 'Debts', level: 1 }).waitFor();
      expect(await page.locator('tbody tr').count()).to.equal(50);
      await shot(page, 'debts');
      await page.getByRole('link', { name: 'Next page' }).click();
      expect(await page.locator('tbody tr').count()).to.equal(4);
      expect(await page.getByRole('link', { name: 'First page' }).count()).to.equal(1);

      await page.goto(url('/console/debts'));
      await page.getByLabel('Status').selectOption('Disputed');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      expect(new URL(page.url()).searchParams.get('status')).to.equal('Disputed');
      expect(await page.locator('tbody tr').count()).to.equal(1);
      expect(await page.locator('tbody').innerText()).to.contain(disputed.externalAccountId);

      await page.goto(url('/console/debts'));
      await page.getByLabel('Metadata key').fill('crmId');
      await page.getByLabel('Metadata value').fill('C-88213');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      expect(await page.locator('tbody tr').count()).to.equal(1);
      await shot(page, 'debts-filtered');

      const combined = `/console/debts?clientReference=INV-7001&createdAfter=2020-01-01&createdBefore=${encodeURIComponent(
        new Date(Date.now() + 60_000).toISOString(),
      )}`;
      await page.goto(url(combined));
      expect(await page.locator('tbody tr').count()).to.equal(1);
      const bad = await page.goto(url('/console/debts?createdAfter=yesterday'));
      expect(bad?.status()).to.equal(400);
      expect(await page.getByRole('alert').innerText()).to.contain('Created after must be a date');

      await page.goto(url('/console/debts?clientReference=INV-7002'));
      await page.getByRole('link', { name: disputed.externalAccountId as string }).click();
      const disputedText = await page.locator('main').innerText();
      expect(disputedText).to.contain('Not my account').and.to.contain('Disputed');

      await page.goto(url('/console/debts?clientReference=INV-7001'));
      await page.getByRole('link', { name: target.externalAccountId as string }).click();
      await page.getByRole('heading', { name: 'Debt', level: 1 }).waitFor();
      const debtText = await page.locator('main').innerText();
      expect(debtText)
        .to.contain('INV-7001')
        .and.to.contain('C-88213')
        .and.to.contain('Active')
        .and.to.contain('1 of 5')
        .and.to.contain('pi_console_1')
        .and.to.contain('1,000.50 AUD')
        .and.to.contain('debt.created');
      await shot(page, 'debt');

      await page.getByRole('link', { name: 'Recall this debt' }).click();
      await page.getByRole('heading', { name: 'Recall a debt' }).waitFor();
      expect((await api<Debt>('GET', `/v1/debts/${target.id}`)).body.status).to.equal('Active');
      await shot(page, 'debt-recall-confirm');
      await page.getByRole('button', { name: 'Recall the debt' }).click();
      await page.getByText('The debt is recalled: its status is now Closed.').waitFor();
      const timeline = await page.locator('ol.timeline').innerText();
      expect(timeline).to.contain('status: Active → Closed').and.to.contain('plan changed');
      expect(await page.locator('main').innerText()).to.contain('Cancelled');
      expect(await page.getByRole('link', { name: 'Recall this debt' }).count()).to.equal(0);
      await shot(page, 'debt-recalled');

      await page.getByRole('link', { name: /Ava Harris/ }).click();
      await page.getByRole('heading', { name: 'Debtor', level: 1 }).waitFor();
      expect(await page.locator('main').innerText()).to.contain(target.externalAccountId);
      await shot(page, 'debtor');

      await page.getByRole('link', { name: 'Debtors', exact: true }).click();
      await page.getByRole('heading', { name: 'Debtors', level: 1 }).waitFor();
      await shot(page, 'debtors');
      const debtor = (await api<{ referenceId: string }>('GET', `/v1/debtors/${target.debtorId}`)).body;
      await page.getByLabel('Reference id').fill(debtor.referenceId);
      await page.getByRole('button', { name: 'Apply filters' }).click();
      expect(await page.locator('tbody tr').count()).to.equal(1);
    });

    expect((await api<Debt>('GET', `/v1/debts/${target.id}`)).body.status).to.equal('Closed');
    const updated = await testDb()('events')
      .where({ organization_id: org.id, type: 'debt.updated' })
      .whereRaw(`data->'debt'->>'id' = ?`, [target.id])
      .select('data', 'request_id');
    expect(updated).to.have.length(1);
    expect(updated[0]!.data.previousAttributes).to.include({ status: 'Active' });
    expect(updated[0]!.request_id).to.match(/^req_/);
    const entries = await audit(org);
    expect(entries.map((e) => e.action)).to.deep.equal(['debt.recalled']);
    expect(entries[0]).to.include({ target: target.id, actor_email: admin.email });
  });

  it('invites a user who signs in by the mailed link, changes their role, removes them, and keeps the last owner', async () => {
    const { org } = await newOrg('Team Org');
    const owner = await newUser(org, 'owner');
    const invited = `invited-${randomUUID()}@example.test`;
    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), owner.email);
      await page.getByRole('link', { name: 'Team' }).click();
      await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
      await page.getByLabel('Email address').fill(invited);
      await page.getByLabel('Role', { exact: true }).selectOption('developer');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText('Invitation sent.').waitFor();
      await shot(page, 'team');

      const mail = await sink.nthMailTo(invited, 1);
      expect(mail.subject).to.equal("You are invited to Team Org's live client console");
      expect(mail.text).to.contain("developer role in Team Org's live client console");
      const link = /http:\/\/\S+(\/console\/sign-in\/link\?token=[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
      const invitedContext = await noJs(browser);
      const invitedPage = await invitedContext.newPage();
      await invitedPage.goto(url(link!));
      await invitedPage.getByRole('button', { name: 'Sign in' }).click();
      await invitedPage.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await invitedPage.locator('header').innerText()).to.contain(`${invited} (developer)`);

      // A role change ends the user's sessions: their next page is the sign-in page, and a new one has the new role.
      await page.getByRole('combobox', { name: `Role of ${invited}` }).selectOption('viewer');
      await page.getByRole('button', { name: `Change the role of ${invited}` }).click();
      await page.getByText('Role changed.').waitFor();
      expect(await page.locator('tbody').innerText()).to.match(new RegExp(`${invited}\\s+viewer`));
      expect(await isSignedOut(invitedContext)).to.equal(true);
      const again = await signIn(invitedContext, invited);
      expect(await again.locator('header').innerText()).to.contain(`${invited} (viewer)`);

      await page.getByRole('link', { name: `Remove ${invited}` }).click();
      await page.getByRole('heading', { name: 'Remove a user' }).waitFor();
      await shot(page, 'team-remove-confirm');
      await page.getByRole('button', { name: 'Remove the user' }).click();
      await page.getByText('User removed.').waitFor();
      expect(await page.locator('tbody').innerText()).not.to.contain(invited);
      const refused = await again.goto(url('/console/debts'));
      expect(new URL(refused!.url()).pathname).to.equal('/console/sign-in');

      // The last owner can be neither demoted nor removed.
      const demote = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('combobox', { name: `Role of ${owner.email}` }).selectOption('admin');
      await page.getByRole('button', { name: `Change the role of ${owner.email}` }).click();
      expect((await demote).status()).to.equal(409);
      expect(await page.locator('main').innerText()).to.contain('An organisation needs an owner');
      await shot(page, 'team-last-owner');
      await page.goto(url(`/console/team/${owner.id}/remove`));
      const remove = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Remove the user' }).click();
      expect((await remove).status()).to.equal(409);
      expect(await isSignedOut(page.context())).to.equal(false);
    });
    expect(await testDb()('staff_users').where({ organization_id: org.id }).select('email', 'role')).to.deep.equal([
      { email: owner.email, role: 'owner' },
    ]);
    const entries = await audit(org);
    expect(entries.map((e) => [e.action, e.target])).to.deep.equal([
      ['user.invited', invited],
      ['user.role_changed', invited],
      ['user.removed', invited],
    ]);
    expect(entries[1]!.details).to.deep.equal({ from: 'developer', to: 'viewer' });
  });

  it('refuses a viewer every write, forged POSTs too, and shows another organisation’s debt, debtor or user as a 404 page', async () => {
    const { org, api } = await newOrg();
    const viewer = await newUser(org, 'viewer');
    const owner = await newUser(org, 'owner');
    const debt = await raiseDebt(api);
    const other = await newOrg('Other Org');
    const foreignDebt = await raiseDebt(other.api);
    const foreignUser = await newUser(other.org, 'admin');
    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), viewer.email);
      await page.goto(url('/console/branding'));
      expect(await page.getByRole('button', { name: 'Save branding' }).count()).to.equal(0);
      await shot(page, 'branding-viewer');
      await page.goto(url(`/console/debts/${debt.id}`));
      expect(await page.getByRole('link', { name: 'Recall this debt' }).count()).to.equal(0);
      await page.goto(url('/console/team'));
      expect(await page.getByRole('button', { name: 'Send invitation' }).count()).to.equal(0);
      await shot(page, 'team-viewer');
      expect((await page.goto(url(`/console/debts/${debt.id}/recall`)))?.status()).to.equal(403);

      const _csrf = await page.locator('input[name=_csrf]').first().inputValue();
      const origin = { origin: server.baseUrl };
      const writes: [string, Record<string, string>, string][] = [
        ['/console/branding', { _csrf, intent: 'save', primaryColor: '#000000', 'saved.primaryColor': '' }, 'branding'],
        [`/console/debts/${debt.id}/recall`, { _csrf }, 'recall a debt'],
        ['/console/team', { _csrf, email: `x-${randomUUID()}@example.test`, role: 'owner' }, 'invite'],
        [`/console/team/${viewer.id}/role`, { _csrf, role: 'owner' }, 'invite'],
        [`/console/team/${owner.id}/remove`, { _csrf }, 'invite'],
      ];
      for (const [path, form, says] of writes) {
        const res = await forgedPost(page, path, form, origin);
        expect(res.status, path).to.equal(403);
        expect(await res.text(), path).to.contain(says);
      }
      expect((await api('GET', '/v1/organization/branding')).body.primaryColor).to.equal(null);
      expect((await api<Debt>('GET', `/v1/debts/${debt.id}`)).body.status).to.equal('PendingAssignment');
      expect(await testDb()('staff_users').where({ organization_id: org.id }).select('id')).to.have.length(2);
      expect(await audit(org)).to.deep.equal([]);

      for (const path of [`/console/debts/${foreignDebt.id}`, `/console/debtors/${foreignDebt.debtorId}`]) {
        expect((await page.goto(url(path)))?.status(), path).to.equal(404);
      }
      const ownerPage = await signIn(await noJs(browser), owner.email);
      expect((await ownerPage.goto(url(`/console/team/${foreignUser.id}/remove`)))?.status()).to.equal(404);
      expect((await ownerPage.goto(url(`/console/debts/${foreignDebt.id}/recall`)))?.status()).to.equal(404);
      const ownerCsrf = await ownerPage.locator('input[name=_csrf]').first().inputValue();
      const foreignRole = await forgedPost(
        ownerPage,
        `/console/team/${foreignUser.id}/role`,
        { _csrf: ownerCsrf, role: 'viewer' },
        origin,
      );
      expect(foreignRole.status).to.equal(404);
      expect(
        (await forgedPost(ownerPage, `/console/debts/${foreignDebt.id}/recall`, { _csrf: ownerCsrf }, origin)).status,
      ).to.equal(404);
      expect((await other.api<Debt>('GET', `/v1/debts/${foreignDebt.id}`)).body.status).to.equal('PendingAssignment');
      expect(await testDb()('staff_users').where({ id: foreignUser.id }).first('role')).to.deep.equal({
        role: 'admin',
      });
    });
  });

  it('axe-core finds no serious or critical violation on any of the new pages', async () => {
    const { org, api } = await newOrg();
    const owner = await newUser(org, 'owner');
    const member = await newUser(org, 'developer');
    const debt = await raiseDebt(api, { metadata: { crmId: 'C-5' } });
    await withBrowser(async (browser) => {
      // The pages forbid every script (CSP); only this context lets the test inject axe.
      const context = await browser.newContext({ bypassCSP: true });
      await signIn(context, owner.email);
      const routes = [
        '/console/branding',
        '/console/debts',
        '/console/debts?createdAfter=bad',
        `/console/debts/${debt.id}`,
        `/console/debts/${debt.id}/recall`,
        '/console/debtors',
        `/console/debtors/${debt.debtorId}`,
        '/console/team',
        `/console/team/${member.id}/remove`,
      ];
      const pages: Page[] = [];
      for (const route of routes) {
        const p = await context.newPage();
        await p.goto(url(route));
        pages.push(p);
      }
      // The form refused, and the preview drawn from submitted values.
      const branding = pages[0]!;
      await branding.getByLabel('Primary colour', { exact: true }).fill('nope');
      await branding.getByRole('button', { name: 'Save branding' }).click();
      await branding.getByRole('alert').waitFor();
      const preview = await context.newPage();
      await preview.goto(url('/console/branding'));
      await preview.getByLabel('Primary colour', { exact: true }).fill('#FFEE00');
      await preview.getByRole('button', { name: 'Preview without saving' }).click();
      pages.push(preview);
      for (const p of pages) expect(await seriousViolations(p), p.url()).to.deep.equal([]);
    });
  });
});
