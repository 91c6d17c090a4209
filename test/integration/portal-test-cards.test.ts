/**
 * The pay page names the test-mode processor's test cards only where no real debt can be: a production host in
 * tests (and development) or the sandbox, never a production host of a real deployment (APP_ENV=production), even
 * one handed the test-mode processor. Against the real app, database and Redis, over HTTP with a verified visit.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';
import { createTestModeProcessor, TEST_CARDS } from '../../core/payments/test-mode-processor';
import { startTestServer, type TestServer } from '../support/app';
import { inlineDebtBody } from '../support/debt-api';
import { testDebtTriggers } from '../support/lifecycle-stack';
import { visitPortal } from '../support/portal-http';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('Portal pay page: the test-card hint', function () {
  this.timeout(60_000);
  const servers: TestServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  async function payPageOn(env: NodeJS.ProcessEnv, headers: Record<string, string> = {}): Promise<string> {
    const paymentProcessor = createTestModeProcessor({ db: testDb(), triggers: testDebtTriggers('production') });
    const server = await startTestServer({ env, deps: { paymentProcessor } });
    servers.push(server);
    const { organization } = await createTestTenant();
    const debt = await testDb().transaction((trx) => createDebt(trx, organization.id, inlineDebtBody()));
    const visitor = await visitPortal(
      server,
      {
        organizationId: organization.id,
        debtId: debt.id,
        debtorId: debt.debtorId,
      },
      headers,
    );
    const page = await visitor.get('/portal/pay');
    expect(page.status, page.html).to.equal(200);
    // The test-mode processor still takes a card number either way.
    expect(page.html).to.contain('<label for="cardNumber">Card number</label>');
    return page.html;
  }

  it('names the test cards on a production host in tests', async () => {
    const html = await payPageOn({});
    expect(html).to.contain('Test mode: no money moves.').and.to.contain('4242 4242 4242 4242');
    expect(html).to.contain('aria-describedby="cardNumber-hint"');
  });

  it('never names them on a production host with APP_ENV=production, even with the test-mode processor', async () => {
    // A deployment's production host: its pages served over https behind a trusted proxy.
    const html = await payPageOn(
      {
        APP_ENV: 'production',
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        PUBLIC_BASE_URL: 'https://collect.example.test',
        TRUSTED_PROXIES: '127.0.0.1',
      },
      { 'X-Forwarded-Proto': 'https' },
    );
    expect(html).not.to.contain('Test mode');
    expect(html).not.to.contain('cardNumber-hint');
    for (const card of Object.values(TEST_CARDS)) {
      expect(html).not.to.contain(card);
      expect(html).not.to.contain(card.replace(/(\d{4})(?=\d)/g, '$1 '));
    }
  });
});
