/**
 * The console's search box (issue 40, item 11) over the real API and database: a debt raised through
 * `POST /v1/debts` is found by its id, external account id and client reference, its debtor by reference and by
 * email in any case, its `debt.created` event and that event's delivery by their ids, and the request by its
 * `X-Request-Id`, which lists what it changed and delivered. Another organisation finds none of it.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createStaffUser } from '../../core/staff/staff-users';
import { startTestServer, type TestServer } from '../support/app';
import { consoleVisitor, type ConsoleVisitor } from '../support/console-http';
import { callerFor, inlineDebtBody, type Debt } from '../support/debt-api';
import { configureReceiver, localWebhookConfig } from '../support/webhooks';
import { testDb } from '../support/resources';
import { createTestTenant, type TestTenant } from '../support/tenants';

describe('console search: one box finds a debt, a debtor, an event, a delivery or a request', function () {
  this.timeout(30_000);
  let server: TestServer;
  let tenant: TestTenant;
  let other: TestTenant;
  let debt: Debt;
  let requestId: string;
  let eventId: string;
  let deliveryId: string;
  const reference = `DBR-${randomUUID().slice(0, 8)}`;
  const email = `Search.${randomUUID().slice(0, 8)}@Example.com`;

  async function visitorOf(t: TestTenant): Promise<ConsoleVisitor> {
    const staffEmail = `viewer-${randomUUID()}@example.test`;
    const user = await createStaffUser(testDb(), t.organization.id, { email: staffEmail, role: 'viewer' });
    return consoleVisitor(server.baseUrl, 'production', {
      userId: user.id,
      organizationId: t.organization.id,
      email: staffEmail,
      role: 'viewer',
    });
  }

  const search = async (visitor: ConsoleVisitor, q: string) => {
    const page = await visitor.get(`/console/search?q=${encodeURIComponent(q)}`);
    expect(page.status, page.text).to.equal(200);
    return page.text;
  };

  before(async () => {
    server = await startTestServer();
    tenant = await createTestTenant({ name: 'Search Org' });
    other = await createTestTenant({ name: 'Search Other Org' });
    await configureReceiver(localWebhookConfig(), tenant.organization.id, 'http://127.0.0.1:9/hooks');
    const api = callerFor(server.baseUrl, tenant);
    const raised = await api<Debt>('POST', '/v1/debts', {
      ...inlineDebtBody({ debtorReferenceId: reference, debtorEmail: email }),
      clientReference: `LOAN-${reference}`,
    });
    expect(raised.status, raised.text).to.equal(201);
    debt = raised.body;
    requestId = raised.headers.get('x-request-id')!;
    const event = await testDb()('events')
      .where({ organization_id: tenant.organization.id })
      .first<{ id: string }>('id');
    eventId = event.id;
    const delivery = await testDb()('webhook_deliveries').where({ event_id: eventId }).first<{ id: string }>('id');
    deliveryId = delivery.id;
  });
  after(async () => {
    await testDb()('organizations').whereIn('id', [tenant.organization.id, other.organization.id]).delete();
    await server.close();
  });

  it('finds the debt by id, external account id and client reference, and links its page', async () => {
    const visitor = await visitorOf(tenant);
    for (const q of [debt.id, String(debt.externalAccountId), `LOAN-${reference}`]) {
      const page = await search(visitor, q);
      expect(page, q).to.contain(`href="/console/debts/${debt.id}"`).and.to.contain('1 found');
    }
  });

  it('finds the debtor by reference and by email in any case', async () => {
    const visitor = await visitorOf(tenant);
    for (const q of [reference, email.toLowerCase(), email.toUpperCase()]) {
      const page = await search(visitor, q);
      expect(page, q).to.contain(`href="/console/debtors/${debt.debtorId}"`);
    }
  });

  it('finds the event and its delivery by their ids, and a request id lists what the request changed and delivered', async () => {
    const visitor = await visitorOf(tenant);
    expect(await search(visitor, eventId))
      .to.contain(eventId)
      .and.to.contain(`href="/console/deliveries/${deliveryId}"`);
    expect(await search(visitor, deliveryId)).to.contain(`href="/console/deliveries/${deliveryId}"`);
    expect(requestId).to.match(/^req_[0-9a-f]{32}$/);
    const byRequest = await search(visitor, requestId);
    expect(byRequest).to.contain(eventId).and.to.contain('debt.created').and.to.contain(deliveryId);
  });

  it('finds nothing of another organisation, and says so', async () => {
    const visitor = await visitorOf(other);
    for (const q of [debt.id, reference, email, eventId, deliveryId, requestId]) {
      const page = await search(visitor, q);
      // The query is echoed back; no debt, debtor or delivery of the other organisation is linked.
      expect(page, q).to.contain('Nothing found');
      for (const href of [`/console/debts/${debt.id}`, `/console/debtors/${debt.debtorId}`, `/console/deliveries/`]) {
        expect(page, q).not.to.contain(`href="${href}`);
      }
    }
  });

  it('answers a blank or odd query with the form alone, never an error', async () => {
    const visitor = await visitorOf(tenant);
    for (const q of ['', '   ', 'x'.repeat(400), "'; drop table debts; --", 'req_nothex']) {
      const page = await search(visitor, q);
      expect(page, q).to.contain('id="search-query"');
    }
  });
});
