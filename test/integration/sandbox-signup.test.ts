/**
 * `POST /sandbox/signup` (DECISIONS.md §1, §6): an anonymous sandbox tenant with one full-scope `ak_test_` key shown
 * once and the seeded dataset exactly; limited per address; absent from the production host and its OpenAPI.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { SCOPES } from '../../core/access/scopes';
import { startTestServer, type TestServer } from '../support/app';
import { expectProblem } from '../support/debt-api';
import { testDb } from '../support/resources';
import { forgetSignups, recordingResets, signUp } from '../support/sandbox';
import { createTestTenant, jsonHeaders } from '../support/tenants';

type Row = Record<string, unknown>;
type Page = { data: Row[]; nextCursor: string | null };

const EXPECTED_DEBTORS = [
  ['DBR-001', 'Ava', 'Harris'],
  ['DBR-002', 'Ben', 'Singh'],
  ['DBR-003', 'Carla', 'Tan'],
  ['DBR-004', 'Dan', 'Murphy'],
  ['DBR-005', 'Ella', 'Nguyen'],
];
const EXPECTED_DEBTS: [string, number, string][] = [
  ['ACCT-0001', 1250, 'PendingAssignment'],
  ['ACCT-0002', 4800, 'Active'],
  ['ACCT-0003', 320.5, 'Settled'],
  ['ACCT-0004', 12750.75, 'InArrears'],
  ['ACCT-0005', 990, 'Disputed'],
  ['ACCT-0006', 6200, 'Accepted'],
  ['ACCT-0007', 75, 'WrittenOff'],
  ['ACCT-0008', 2400, 'Closed'],
];

const byField = (field: string) => (a: Row, b: Row) => String(a[field]).localeCompare(String(b[field]));

describe('Sandbox sign-up: POST /sandbox/signup', function () {
  this.timeout(60_000);
  const resets = recordingResets();
  let sandbox: TestServer;
  let production: TestServer;

  before(async () => {
    sandbox = await startTestServer({
      mode: 'sandbox',
      env: { SANDBOX_SIGNUPS_PER_HOUR: '1000000' },
      deps: { sandboxResets: resets },
    });
    production = await startTestServer({ mode: 'production' });
  });
  after(async () => {
    await sandbox?.close();
    await production?.close();
  });

  it('creates a sandbox organisation and one ak_test_ key with every scope, stored only as its hash', async () => {
    const tenant = await signUp(sandbox.baseUrl, { organizationName: 'Acme Dev' });
    const { organization, apiKey } = tenant.body as { organization: Row; apiKey: Row };
    expect(organization).to.include({ name: 'Acme Dev', mode: 'sandbox' });
    expect(apiKey.key).to.match(/^ak_test_[A-Za-z0-9]{40}$/);
    expect(apiKey.scopes).to.have.members([...SCOPES]);
    expect(apiKey.readOnly).to.equal(false);

    const me = await tenant.api('GET', '/v1/organization');
    expect(me.status).to.equal(200);
    expect(me.body).to.deep.equal(organization);
    const stored = await testDb()('api_keys')
      .where({ organization_id: organization.id as string })
      .select('*');
    expect(stored).to.have.length(1);
    expect(stored[0]!.secret_hash).to.equal(createHash('sha256').update(tenant.key).digest('hex'));
    expect(JSON.stringify(stored)).not.to.include(tenant.key);
    expect(resets.calls).to.deep.include({ kind: 'start', organizationId: organization.id });
  });

  it('names the organisation "Sandbox organisation" without a body, and sends the key with Cache-Control: no-store', async () => {
    const res = await fetch(`${sandbox.baseUrl}/sandbox/signup`, { method: 'POST' });
    expect(res.status).to.equal(201);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const body = (await res.json()) as { organization: Row };
    expect(body.organization.name).to.equal('Sandbox organisation');
  });

  it('seeds exactly the dataset of DECISIONS.md §6: 5 debtors and 8 AUD debts over the lifecycle states', async () => {
    const { api } = await signUp(sandbox.baseUrl);
    const debtors = (await api<Page>('GET', '/v1/debtors?limit=200')).body.data.sort(byField('referenceId'));
    expect(debtors.map((d) => [d.referenceId, d.firstName, d.lastName])).to.deep.equal(EXPECTED_DEBTORS);
    for (const d of debtors) {
      expect(d.email).to.equal(`${String(d.firstName).toLowerCase()}.${String(d.lastName).toLowerCase()}@example.com`);
    }
    // Every form of the portal's second factor: both, a date of birth only, a postcode only, neither.
    expect(debtors.map((d) => d.verification)).to.deep.equal([
      { dateOfBirth: true, postcode: true },
      { dateOfBirth: true, postcode: false },
      { dateOfBirth: false, postcode: true },
      { dateOfBirth: false, postcode: false },
      { dateOfBirth: false, postcode: false },
    ]);
    const debts = (await api<Page>('GET', '/v1/debts?limit=200')).body.data.sort(byField('externalAccountId'));
    expect(debts.map((d) => [d.externalAccountId, d.originalPrincipal, d.status])).to.deep.equal(EXPECTED_DEBTS);
    expect(new Set(debts.map((d) => d.currency))).to.deep.equal(new Set(['AUD']));
    const debtorIds = new Set(debtors.map((d) => d.id));
    for (const debt of debts) expect(debtorIds.has(debt.debtorId)).to.equal(true);
  });

  it('explains every balance by its transactions: original minus successful payments is outstanding', async () => {
    const { api } = await signUp(sandbox.baseUrl);
    const debts = (await api<Page>('GET', '/v1/debts?limit=200')).body.data;
    for (const debt of debts) {
      const transactions = (await api<Page>('GET', `/v1/transactions?debtId=${String(debt.id)}&limit=200`)).body.data;
      const paidCents = transactions
        .filter((t) => t.direction === 'Inbound' && t.status === 'Succeeded')
        .reduce((sum, t) => sum + Math.round((t.amount as number) * 100), 0);
      const original = Math.round((debt.originalPrincipal as number) * 100);
      const outstanding = Math.round((debt.outstandingPrincipal as number) * 100);
      expect(original - paidCents, String(debt.externalAccountId)).to.equal(outstanding);
      if (debt.status === 'Settled') expect(outstanding).to.equal(0);
    }
    const byAccount = new Map(debts.map((d) => [d.externalAccountId, d]));
    expect(byAccount.get('ACCT-0002')!.plan).to.include({ status: 'Active', instalmentsPaid: 2, instalmentCount: 12 });
    expect(byAccount.get('ACCT-0004')!.plan).to.include({ status: 'Defaulted', instalmentsPaid: 1, nextDueDate: null });
    expect(byAccount.get('ACCT-0005')!.disputeReason).to.be.a('string');
  });

  it('attaches the generated sample agreement, a valid PDF, to the active and the disputed debt', async () => {
    const { api, key } = await signUp(sandbox.baseUrl);
    const debts = (await api<Page>('GET', '/v1/debts?limit=200')).body.data;
    const withDocuments: string[] = [];
    for (const debt of debts) {
      const documents = (await api<Page>('GET', `/v1/debts/${String(debt.id)}/documents`)).body.data;
      if (documents.length === 0) continue;
      withDocuments.push(String(debt.externalAccountId));
      expect(documents).to.have.length(1);
      const document = documents[0]!;
      expect(document).to.include({
        kind: 'Agreement',
        contentType: 'application/pdf',
        fileName: `agreement-${String(debt.externalAccountId)}.pdf`,
      });
      const res = await fetch(
        `${sandbox.baseUrl}/v1/debts/${String(debt.id)}/documents/${String(document.id)}/content`,
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      const pdf = Buffer.from(await res.arrayBuffer());
      expect(createHash('sha256').update(pdf).digest('hex')).to.equal(document.sha256);
      const text = pdf.toString('latin1');
      expect(text.startsWith('%PDF-1.4\n')).to.equal(true);
      expect(text).to.contain(`Account: ${String(debt.externalAccountId)}`);
      expect(text.trimEnd().endsWith('%%EOF')).to.equal(true);
    }
    expect(withDocuments.sort()).to.deep.equal(['ACCT-0002', 'ACCT-0005']);
  });

  it('records no events for the seed: a fixture sends no webhooks', async () => {
    const { api } = await signUp(sandbox.baseUrl);
    const events = await api<Page>('GET', '/v1/events');
    expect(events.status).to.equal(200);
    expect(events.body.data).to.deep.equal([]);
  });

  it('refuses a malformed body with 400 invalid_request', async () => {
    const res = await fetch(`${sandbox.baseUrl}/sandbox/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ organizationName: 42 }),
    });
    const body = (await res.json()) as Row;
    expectProblem({ status: res.status, body, headers: res.headers, text: '' }, 400, 'invalid_request');
  });

  it('is listed in the sandbox host’s OpenAPI document with POST /v1/sandbox/reset', async () => {
    const doc = (await (await fetch(`${sandbox.baseUrl}/openapi/v1.json`)).json()) as { paths: Row };
    expect(doc.paths).to.have.property('/sandbox/signup');
    expect(doc.paths).to.have.property('/v1/sandbox/reset');
  });

  it('POST /v1/sandbox/reset asks the tenant’s workflow to reset (202) and needs a key that may write debts', async () => {
    const tenant = await signUp(sandbox.baseUrl);
    const accepted = await tenant.api('POST', '/v1/sandbox/reset');
    expect(accepted.status, accepted.text).to.equal(202);
    expect(accepted.body.status).to.equal('Requested');
    expect(resets.calls).to.deep.include({ kind: 'resetNow', organizationId: tenant.organizationId });

    const readOnly = await createTestTenant({ mode: 'sandbox', readOnly: true });
    const refused = await fetch(`${sandbox.baseUrl}/v1/sandbox/reset`, { method: 'POST', headers: readOnly.headers });
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as Row).title).to.equal('read_only_key');
    expect(resets.calls).to.not.deep.include({ kind: 'resetNow', organizationId: readOnly.organization.id });
  });

  describe('on the production host', () => {
    it('answers 404 for sign-up and reset, and its OpenAPI document lists neither', async () => {
      const signup = await fetch(`${production.baseUrl}/sandbox/signup`, { method: 'POST' });
      expect(signup.status).to.equal(404);
      const tenant = await createTestTenant();
      const reset = await fetch(`${production.baseUrl}/v1/sandbox/reset`, {
        method: 'POST',
        headers: jsonHeaders(tenant),
      });
      expect(reset.status).to.equal(404);
      const doc = (await (await fetch(`${production.baseUrl}/openapi/v1.json`)).json()) as { paths: Row };
      expect(Object.keys(doc.paths).filter((p) => p.includes('sandbox'))).to.deep.equal([]);
    });
  });

  describe('rate limit per client address', () => {
    let limited: TestServer;
    before(async () => {
      limited = await startTestServer({ mode: 'sandbox', env: { SANDBOX_SIGNUPS_PER_HOUR: '2' } });
    });
    after(async () => {
      await forgetSignups();
      await limited?.close();
    });

    it('admits the configured number of sign-ups an hour, then answers 429 with Retry-After', async () => {
      await forgetSignups();
      await signUp(limited.baseUrl);
      await signUp(limited.baseUrl);
      const res = await fetch(`${limited.baseUrl}/sandbox/signup`, { method: 'POST' });
      const text = await res.text();
      expectProblem(
        { status: res.status, body: JSON.parse(text) as Row, headers: res.headers, text },
        429,
        'rate_limited',
      );
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).to.be.greaterThan(3500).and.at.most(3600);
    });
  });
});
