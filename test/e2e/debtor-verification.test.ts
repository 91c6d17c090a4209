/**
 * A debtor's verification data in the browser (issue 37, item 1): the console's debtor page shows each value masked
 * (the century of the date of birth, the last two characters of the postcode) and what the portal asks for; the
 * portal's form asks a debtor with both for date of birth and postcode, with JavaScript off, and admits only those.
 * axe-core on both pages; screenshots in test-artifacts/console/ and test-artifacts/portal/.
 */
import { mkdir } from 'node:fs/promises';
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { issuePortalLink, PORTAL_LINK_PATH } from '../../core/portal/links';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { CONSOLE_SHOTS, consoleBrowser, newStaffUser, seriousAxeViolations } from '../support/console-browser';
import { callerFor, raiseDebt } from '../support/debt-api';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { clearPortalTries, phone, portalShot, PORTAL_SHOTS } from '../support/portal-browser';
import { testDb } from '../support/resources';
import { mintKey } from '../support/tenants';

describe('Debtor verification data: masked in the console, asked by the portal', function () {
  this.timeout(180_000);
  let sink: MailSink;
  let mailer: Mailer;
  let server: TestServer;
  const { shot, signIn } = consoleBrowser({ baseUrl: () => server.baseUrl, sink: () => sink });

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    await mkdir(PORTAL_SHOTS, { recursive: true });
    await clearPortalTries();
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    server = await startTestServer({
      deps: { mailer },
      env: { SIGN_IN_REQUESTS_PER_HOUR: '1000', SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000' },
    });
  });
  after(async () => {
    await server?.close();
    mailer?.close();
    await sink?.stop();
  });

  async function debtOf(data: Record<string, string>) {
    const org = await createOrganization(testDb(), { name: 'Fern Credit', mode: 'production' });
    const api = callerFor(server.baseUrl, await mintKey(org.id));
    const debt = await raiseDebt(api, data);
    return { org, debt };
  }

  it('the console’s debtor page shows the data masked, and what the portal asks for', async () => {
    const { org, debt } = await debtOf({ debtorDateOfBirth: '1985-04-12', debtorPostcode: 'sw1a 9zz' });
    const email = await newStaffUser(org.id, 'viewer');
    await withBrowser(async (browser) => {
      const context = await browser.newContext({ bypassCSP: true });
      const page = await signIn(context, email);
      await page.goto(`${server.baseUrl}/console/debtors/${debt.debtorId}`);
      await page.getByRole('heading', { name: 'Debtor', level: 1 }).waitFor();
      const text = await page.locator('main').innerText();
      expect(text).to.contain('On file (••/••/19••)').and.contain('On file (•••• ZZ)');
      expect(text).to.match(/Portal asks for\s+Date of birth and postcode/);
      for (const secret of ['1985-04', '/1985', '04-12', '12/04', 'SW1A', 'sw1a', '9ZZ']) {
        expect(text).not.to.contain(secret);
      }
      expect(await page.content()).not.to.contain('1985-04-12');
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
      await shot(page, 'debtor-verification');
    });
    const { debt: plain, org: other } = await debtOf({});
    const viewer = await newStaffUser(other.id, 'viewer');
    await withBrowser(async (browser) => {
      const page = await signIn(await browser.newContext({ javaScriptEnabled: false }), viewer);
      await page.goto(`${server.baseUrl}/console/debtors/${plain.debtorId}`);
      const text = await page.locator('main').innerText();
      expect(text).to.match(/Date of birth\s+Not on file/);
      expect(text).to.match(/Portal asks for\s+Account reference and surname/);
    });
  });

  it('the portal asks a debtor with both for date of birth and postcode, with JavaScript off, and admits only those', async () => {
    const { org, debt } = await debtOf({ debtorDateOfBirth: '1985-04-12', debtorPostcode: 'SW1A 9ZZ' });
    const { token } = await issuePortalLink(testDb(), { organizationId: org.id, debtId: debt.id });
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, false)).newPage();
      await page.goto(`${server.baseUrl}${PORTAL_LINK_PATH}${token}`);
      await page.getByRole('heading', { name: 'Check it is you', level: 1 }).waitFor();
      expect(await page.getByLabel('Account reference').count()).to.equal(0);
      expect(await page.getByLabel('Your surname (family name)').count()).to.equal(0);
      const dob = page.getByRole('group', { name: 'Your date of birth' });
      await dob.getByLabel('Day').fill('12');
      await dob.getByLabel('Month').fill('4');
      await dob.getByLabel('Year').fill('1985');
      await page.getByLabel('Your postcode').fill('SW1A 9ZY');
      await portalShot(page, 'verify-date-of-birth-postcode');
      const refused = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Continue' }).click();
      expect((await refused).status()).to.equal(400);
      await page.getByText('Those details do not match this link.').waitFor();

      await page.getByLabel('Your postcode').fill('sw1a9zz');
      const admitted = page.waitForResponse((r) => r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Continue' }).click();
      expect((await admitted).status()).to.equal(303);
      await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    });
    await withBrowser(async (browser) => {
      const page = await (await phone(browser, true)).newPage();
      await page.goto(`${server.baseUrl}${PORTAL_LINK_PATH}${token}`);
      await page.getByRole('heading', { name: 'Check it is you', level: 1 }).waitFor();
      expect(await seriousAxeViolations(page)).to.deep.equal([]);
    });
  });
});
