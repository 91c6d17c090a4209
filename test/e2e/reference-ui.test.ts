import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';
import { createTestTenant } from '../support/tenants';

/** Controls of Scalar's hosted services (its developer toolbar, AI agent, hosted client): none belongs offline. */
const HOSTED_SERVICE_CONTROLS = ['Developer Tools', 'Configure', 'Share', 'Deploy', 'Open API Client', 'Ask AI'];

describe('Interactive references in a real browser', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('Swagger UI at /swagger renders the operations of /openapi/v1.json', async () => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      const offHost: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(server.baseUrl)) offHost.push(r.url());
      });
      await page.goto(`${server.baseUrl}/swagger`);
      const operation = page.locator('.opblock-summary-path', { hasText: '/v1/debts' }).first();
      await operation.waitFor({ timeout: 30_000 });
      expect(await page.locator('.opblock').count()).to.be.greaterThan(1);
      expect(await page.locator('.info .title').innerText()).to.contain('Debt Recovery Client Public API');
      await page.screenshot({ path: '/tmp/client-api-swagger.png' });
      expect(offHost).to.deep.equal([]);
    });
  });

  it('the reference at /reference renders the operations of /openapi/v1.json', async () => {
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      const offHost: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(server.baseUrl) && !r.url().startsWith('data:')) offHost.push(r.url());
      });
      await page.goto(`${server.baseUrl}/reference`);
      await page.getByRole('heading', { name: 'Debt Recovery Client Public API' }).first().waitFor({ timeout: 30_000 });
      // Tags start collapsed: open Debts in the sidebar, as a reader would, and its operations appear.
      await page.getByText('Debts', { exact: true }).first().click();
      await page.getByText('Raise a debt').first().waitFor({ timeout: 30_000 });
      expect(await page.getByText('List debts').count()).to.be.greaterThan(0);
      await page.screenshot({ path: '/tmp/client-api-reference.png', fullPage: false });
      expect(offHost).to.deep.equal([]);
    });
  });

  for (const mode of ['production', 'sandbox'] as const) {
    it(`the ${mode} host's /reference is ready to try: bearer selected, its own server first, no hosted-service toolbar, a pasted key answers`, async () => {
      const host = await startTestServer({ mode });
      try {
        const tenant = await createTestTenant({ mode, name: `Reference ${mode} org` });
        await withBrowser(async (browser) => {
          const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
          const offHost: string[] = [];
          page.on('request', (r) => {
            if (!r.url().startsWith(host.baseUrl) && !r.url().startsWith('data:')) offHost.push(r.url());
          });
          await page.goto(`${host.baseUrl}/reference`);
          const server = page.locator('button', { hasText: /^Server:/ }).first();
          await server.waitFor({ timeout: 30_000 });
          expect(await server.textContent()).to.equal(`Server:${host.baseUrl}`);
          await page.locator('button', { hasText: 'Selected Auth Type: bearerApiKey' }).first().waitFor();
          expect(await page.getByText('No authentication selected').count()).to.equal(0);
          for (const name of HOSTED_SERVICE_CONTROLS) {
            expect(await page.getByText(name, { exact: true }).count(), name).to.equal(0);
          }
          await page.screenshot({ path: `/tmp/client-api-reference-${mode}.png` });

          // Paste the key once, in the introduction's auth panel; the operation's request panel sends it at once.
          await page.getByPlaceholder('Token').first().fill(tenant.key);
          await page.locator('button.show-api-client-button', { hasText: 'get /v1/organization)' }).first().click();
          const answered = page.waitForResponse((r) => r.url() === `${host.baseUrl}/v1/organization`);
          await page.getByRole('button', { name: /Send/ }).first().click();
          const response = await answered;
          expect(response.status()).to.equal(200);
          expect(await response.request().headerValue('authorization')).to.equal(`Bearer ${tenant.key}`);
          expect(await response.json()).to.include({ name: `Reference ${mode} org`, mode });
          expect(offHost).to.deep.equal([]);
        });
      } finally {
        await host.close();
      }
    });
  }
});
