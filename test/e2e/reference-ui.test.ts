import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/app';
import { withBrowser } from '../support/browser';

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
      const operation = page.locator('.opblock-summary-path', { hasText: '/healthz' }).first();
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
});
