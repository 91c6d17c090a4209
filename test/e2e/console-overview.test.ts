/**
 * The console's Overview in Chromium (issue 40) with JavaScript off, for a tenant with deliveries over 30 days, debts
 * over every status and payments in two currencies: the failing-now banner, the charts drawn from those rows (SVG
 * images named and described, with tables of the same figures), the charts' stylesheet, screenshots at 1280 and 360
 * px wide, and axe-core clean at both widths.
 */
import { expect } from 'chai';
import { mkdir } from 'node:fs/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { createOrganization, type Organization } from '../../core/access/organizations';
import { recordTransaction } from '../../core/debts/transactions';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { utcDay } from '../../core/rollups/overview-rollups';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { CONSOLE_SHOTS, consoleBrowser, newStaffUser } from '../support/console-browser';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { testDb } from '../support/resources';
import { insertDeliveries, type DeliverySpec } from '../support/rollup-fixtures';
import { seedDebts } from '../bench/seed-debts';

const DAY_MS = 86_400_000;
const NARROW = { width: 360, height: 800 };

/** A month of deliveries: 20 to 60 a day, a bad spell 10–12 days ago; two failing now, one not yet attempted. */
function monthOfDeliveries(): DeliverySpec[] {
  const specs: DeliverySpec[] = [];
  for (let day = 0; day < 30; day++) {
    const n = 20 + ((day * 7) % 41);
    const failEvery = day >= 10 && day <= 12 ? 3 : 25;
    for (let i = 0; i < n; i++) {
      specs.push({ status: i % failEvery === 0 ? 'Failed' : 'Succeeded', agoMs: day * DAY_MS + (i + 1) * 1_000 });
    }
  }
  return [
    ...specs,
    { status: 'Pending', attemptCount: 3, agoMs: 3_600_000 },
    { status: 'Pending', attemptCount: 1, agoMs: 600_000 },
    { status: 'Pending', agoMs: 1_000 },
  ];
}

async function seedTenant(org: Organization): Promise<void> {
  const db = testDb();
  await insertDeliveries(db, org.id, monthOfDeliveries());
  await seedDebts(db, org.id, 45);
  const debts = await db('debts').where({ organization_id: org.id }).orderBy('id').limit(2).pluck<string[]>('id');
  await db('debts').where({ id: debts[1] }).update({ currency: 'USD' });
  for (let week = 0; week < 12; week++) {
    for (const [debtId, amount] of [
      [debts[0]!, `${(120 + week * 37.25).toFixed(2)}`],
      [debts[1]!, `${(40 + ((week * 13) % 50)).toFixed(2)}`],
    ] as const) {
      const payment = await recordTransaction(db, org.id, {
        debtId,
        direction: 'Inbound',
        status: 'Succeeded',
        type: 'Payment',
        amount,
      });
      await db('transactions')
        .where({ id: payment.id })
        .update({ created_at: new Date(Date.now() - week * 7 * DAY_MS) });
    }
  }
}

describe('Console Overview in a real browser: charts from a tenant’s month of rows', function () {
  this.timeout(120_000);
  let sink: MailSink;
  let mailer: Mailer;
  let server: TestServer;
  let org: Organization;
  const { shot, noJs, signIn, seriousViolations } = consoleBrowser({
    baseUrl: () => server.baseUrl,
    sink: () => sink,
  });

  before(async () => {
    await mkdir(CONSOLE_SHOTS, { recursive: true });
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    // Sign-ins from 127.0.0.1 share one limit per test process: the suites before this one may have used it up.
    server = await startTestServer({
      deps: { mailer },
      env: { SIGN_IN_REQUESTS_PER_HOUR: '1000', SIGN_IN_REQUESTS_PER_ADDRESS_PER_HOUR: '1000' },
    });
    org = await createOrganization(testDb(), { name: 'Overview Charts Org', mode: 'production' });
    await seedTenant(org);
  });
  after(async () => {
    await testDb()('organizations').where({ id: org.id }).delete();
    await server.close();
    mailer.close();
    await sink.stop();
  });

  /** The rows of the (visually hidden) table captioned `caption`, as text per cell. */
  async function tableRows(page: Page, caption: string): Promise<string[][]> {
    const table = page.locator('table', { has: page.locator('caption', { hasText: caption }) });
    const rows = await table.locator('tbody tr').all();
    return Promise.all(rows.map(async (r) => (await r.locator('th, td').allTextContents()).map((t) => t.trim())));
  }

  it('shows failing now, and the charts and their tables drawn from the tenant’s rows, with JavaScript off', async () => {
    const email = await newStaffUser(org.id, 'admin');
    await withBrowser(async (browser) => {
      const page = await signIn(await noJs(browser), email);
      const banner = await page.getByRole('alert').innerText();
      expect(banner).to.contain('2 webhook deliveries failing now').and.contain('failed in the last 7 days');

      const deliveries = page.getByRole('img', {
        name: 'Webhook deliveries per day by outcome, with the success rate',
      });
      await deliveries.waitFor();
      expect(await deliveries.locator('rect').count()).to.be.greaterThan(30);
      const days = await tableRows(page, 'Webhook deliveries finished per UTC day');
      expect(days).to.have.length(30);
      // The bad spell of 10–12 days ago: one in three failed.
      const badDay = days.find((cells) => cells[0] === utcDay(new Date(), -11))!;
      const [delivered, failed] = [Number(badDay[1]), Number(badDay[2])];
      expect(failed).to.be.greaterThan(0);
      expect(failed / (delivered + failed)).to.be.within(0.3, 0.37);

      const debts = page.getByRole('img', { name: 'Debts by status' });
      expect(await debts.getAttribute('aria-labelledby')).to.equal('debts-chart-title debts-chart-desc');
      const statusRows = await tableRows(page, 'Debts by status');
      expect(statusRows.map((r) => r[0])).to.have.length(8);
      expect(statusRows.reduce((sum, r) => sum + Number(r[2]), 0)).to.equal(45);

      for (const currency of ['AUD', 'USD']) {
        await page.getByRole('img', { name: `Payments collected per week in ${currency}` }).waitFor();
        const weeks = await tableRows(page, `Payments collected per week in ${currency}`);
        expect(weeks).to.have.length(12);
        expect(weeks.every((w) => w[1]!.endsWith(` ${currency}`) && w[2] === '1')).to.equal(true);
      }
      expect((await tableRows(page, 'Payments collected per week in AUD')).at(-1)![1]).to.equal('120.00 AUD');

      const href = await page.locator('link[href*="/console/assets/charts/"]').getAttribute('href');
      const css = await fetch(`${server.baseUrl}${href}`);
      expect(css.status).to.equal(200);
      expect(css.headers.get('content-type')).to.contain('text/css');
      expect(await css.text()).to.contain('.chart-legend');
      await shot(page, 'overview-charts');

      const narrow = await browser.newContext({ javaScriptEnabled: false, viewport: NARROW });
      await copyCookies(page.context(), narrow);
      const small = await narrow.newPage();
      await small.goto(`${server.baseUrl}/console`);
      await small.getByRole('img', { name: 'Debts by status' }).waitFor();
      await shot(small, 'overview-charts-360');
    });
  });

  it('axe-core finds no serious or critical violation on the Overview at 1280 and 360 px', async () => {
    const email = await newStaffUser(org.id, 'developer');
    await withBrowser(async (browser) => {
      // The pages forbid every script (CSP); only this context lets the test inject axe.
      const context = await browser.newContext({ bypassCSP: true });
      const page = await signIn(context, email);
      expect(await seriousViolations(page)).to.deep.equal([]);
      await page.setViewportSize(NARROW);
      await page.reload();
      // The whole page, the header too: its navigation wraps inside its dark bar.
      expect(await seriousViolations(page)).to.deep.equal([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, 'the Overview scrolls sideways at 360 px').to.be.at.most(0);
    });
  });
});

async function copyCookies(from: BrowserContext, to: BrowserContext): Promise<void> {
  await to.addCookies(await from.cookies());
}
