/**
 * The portal's second factor asks for the strongest pair the debtor's record allows (core/portal/asked-factors.ts):
 * date of birth and postcode when both are on file, else the one on file and the surname, else the account reference
 * and the surname. The form names what it asks for and never shows a value; only the pair asked opens the link (the
 * reference and surname, which mail a third party may read carries, no longer open a debtor with data). Then item 8's
 * portal part: the production and sandbox hosts share one Redis, and neither host's portal sessions nor its try
 * counters reach the other. Plain HTTP, as a browser with JavaScript off sends the form.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { issuePortalLink, PORTAL_LINK_PATH, revokePortalLink } from '../../core/portal/links';
import { startTestServer, type TestServer } from '../support/app';
import { callerFor, raiseDebt, type Caller, type Debt } from '../support/debt-api';
import { clearPortalTries } from '../support/portal-browser';
import { testDb } from '../support/resources';
import { createTestTenant, type TestTenant } from '../support/tenants';

const DOB = { dobDay: '12', dobMonth: '4', dobYear: '1985' };
const POSTCODE = 'SW1A 9ZZ';

interface Form {
  cookie: string;
  csrf: string;
  html: string;
}

/** The names of a form's visible inputs, in order. */
const fieldsOf = (html: string) =>
  [...html.matchAll(/<input[^>]*name="([^"]+)"/g)].map((m) => m[1]).filter((name) => name !== '_csrf');

describe('portal second factor: the strongest pair on file', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let api: Caller;

  before(async () => {
    server = await startTestServer({ env: { PORTAL_TRIES_PER_LINK: '100', PORTAL_TRIES_PER_ADDRESS: '1000' } });
    tenant = await createTestTenant();
    api = callerFor(server.baseUrl, tenant);
  });
  beforeEach(clearPortalTries);
  after(async () => {
    await server.close();
  });

  async function formOf(base: string, path: string): Promise<Form> {
    const res = await fetch(`${base}${path}`);
    expect(res.status).to.equal(200);
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    const html = await res.text();
    const csrf = /name="_csrf" value="([A-Za-z0-9_-]{43})"/.exec(html)![1]!;
    return { cookie, csrf, html };
  }

  async function answer(base: string, path: string, fields: Record<string, string>) {
    const form = await formOf(base, path);
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: form.csrf, ...fields }).toString(),
    });
    return { status: res.status, html: await res.text(), cookies: res.headers.getSetCookie() };
  }

  /** A debt of a debtor with this verification data, and its link's path. */
  async function linkFor(data: { debtorDateOfBirth?: string; debtorPostcode?: string }) {
    const debt = (await raiseDebt(api, data)) as Debt & { externalAccountId: string };
    const { token } = await issuePortalLink(testDb(), { organizationId: tenant.organization.id, debtId: debt.id });
    return { path: `${PORTAL_LINK_PATH}${token}`, reference: debt.externalAccountId, debtId: debt.id };
  }

  it('a debtor with both: date of birth and postcode, only those open it; the form shows neither value', async () => {
    const link = await linkFor({ debtorDateOfBirth: '1985-04-12', debtorPostcode: POSTCODE });
    const form = await formOf(server.baseUrl, link.path);
    expect(fieldsOf(form.html)).to.deep.equal(['dobDay', 'dobMonth', 'dobYear', 'postcode']);
    expect(form.html).to.contain('your date of birth and your postcode');
    expect(form.html).to.contain('autocomplete="bday-day"').and.contain('autocomplete="postal-code"');
    for (const secret of ['1985', 'SW1A', link.reference, 'Harris']) expect(form.html).not.to.contain(secret);

    const url = server.baseUrl;
    expect((await answer(url, link.path, { accountReference: link.reference, surname: 'Harris' })).status).to.equal(
      400,
    );
    expect((await answer(url, link.path, { ...DOB, dobDay: '13', postcode: POSTCODE })).status).to.equal(400);
    expect((await answer(url, link.path, { ...DOB, postcode: 'SW1A 9ZY' })).status).to.equal(400);
    expect((await answer(url, link.path, { ...DOB, dobMonth: '13', postcode: POSTCODE })).status).to.equal(400);
    const refused = await answer(url, link.path, { ...DOB, postcode: 'nope' });
    expect(fieldsOf(refused.html)).to.deep.equal(['dobDay', 'dobMonth', 'dobYear', 'postcode']);
    expect(refused.html).to.contain('Those details do not match this link.');
    // Case, spaces and leading zeros do not matter.
    const admitted = await answer(url, link.path, {
      dobDay: '12',
      dobMonth: '04',
      dobYear: '1985',
      postcode: 'sw1a9zz',
    });
    expect(admitted.status).to.equal(303);
    expect(admitted.cookies.some((c) => c.startsWith('portal_session='))).to.equal(true);
  });

  it('a debtor with one of them: that one and the surname', async () => {
    const dobOnly = await linkFor({ debtorDateOfBirth: '1985-04-12' });
    expect(fieldsOf((await formOf(server.baseUrl, dobOnly.path)).html)).to.deep.equal([
      'dobDay',
      'dobMonth',
      'dobYear',
      'surname',
    ]);
    expect(
      (await answer(server.baseUrl, dobOnly.path, { accountReference: dobOnly.reference, surname: 'Harris' })).status,
    ).to.equal(400);
    expect((await answer(server.baseUrl, dobOnly.path, { ...DOB, surname: 'Harrison' })).status).to.equal(400);
    expect((await answer(server.baseUrl, dobOnly.path, { ...DOB, surname: 'harris' })).status).to.equal(303);

    const postcodeOnly = await linkFor({ debtorPostcode: POSTCODE });
    expect(fieldsOf((await formOf(server.baseUrl, postcodeOnly.path)).html)).to.deep.equal(['postcode', 'surname']);
    expect(
      (await answer(server.baseUrl, postcodeOnly.path, { accountReference: postcodeOnly.reference, surname: 'Harris' }))
        .status,
    ).to.equal(400);
    expect(
      (await answer(server.baseUrl, postcodeOnly.path, { postcode: POSTCODE, surname: 'Harris' })).status,
    ).to.equal(303);
  });

  it('a debtor with neither, and an unknown link: the account reference and the surname, as before', async () => {
    const plain = await linkFor({});
    expect(fieldsOf((await formOf(server.baseUrl, plain.path)).html)).to.deep.equal(['accountReference', 'surname']);
    expect(
      (await answer(server.baseUrl, plain.path, { accountReference: plain.reference, surname: 'Harris' })).status,
    ).to.equal(303);
    const unknown = `${PORTAL_LINK_PATH}${randomBytes(32).toString('base64url')}`;
    expect(fieldsOf((await formOf(server.baseUrl, unknown)).html)).to.deep.equal(['accountReference', 'surname']);
  });

  it('a revoked link shows the form it showed, and its right answers are refused like wrong ones', async () => {
    const link = await linkFor({ debtorDateOfBirth: '1985-04-12', debtorPostcode: POSTCODE });
    await revokePortalLink(testDb(), { organizationId: tenant.organization.id, debtId: link.debtId });
    expect(fieldsOf((await formOf(server.baseUrl, link.path)).html)).to.deep.equal([
      'dobDay',
      'dobMonth',
      'dobYear',
      'postcode',
    ]);
    const refused = await answer(server.baseUrl, link.path, { ...DOB, postcode: POSTCODE });
    expect(refused.status).to.equal(400);
    expect(refused.html).to.contain('Those details do not match this link.');
  });

  describe('hosts apart (item 8)', () => {
    let strict: TestServer;
    let sandbox: TestServer;

    before(async () => {
      const env = { PORTAL_TRIES_PER_LINK: '2', PORTAL_TRIES_PER_ADDRESS: '1000' };
      [strict, sandbox] = await Promise.all([startTestServer({ env }), startTestServer({ mode: 'sandbox', env })]);
    });
    after(async () => {
      await Promise.all([strict.close(), sandbox.close()]);
    });

    it('a production portal session is refused on the sandbox host', async () => {
      const link = await linkFor({});
      const admitted = await answer(strict.baseUrl, link.path, { accountReference: link.reference, surname: 'Harris' });
      expect(admitted.status).to.equal(303);
      const cookie = admitted.cookies.find((c) => c.startsWith('portal_session='))!.split(';')[0]!;
      const onProduction = await fetch(`${strict.baseUrl}/portal/debt`, { headers: { cookie } });
      expect(onProduction.status).to.equal(200);
      const onSandbox = await fetch(`${sandbox.baseUrl}/portal/debt`, { headers: { cookie } });
      expect(onSandbox.status).to.equal(401);
      expect(await onSandbox.text()).not.to.contain(link.reference);
    });

    it('wrong answers on one host never use up the other host’s tries', async () => {
      const link = await linkFor({});
      const wrong = { accountReference: link.reference, surname: 'Nobody' };
      expect((await answer(strict.baseUrl, link.path, wrong)).status).to.equal(400);
      expect((await answer(strict.baseUrl, link.path, wrong)).status).to.equal(400);
      expect((await answer(strict.baseUrl, link.path, wrong)).status).to.equal(429);
      // The sandbox host counts its own: this answer is judged (400), not refused unjudged (429).
      expect((await answer(sandbox.baseUrl, link.path, wrong)).status).to.equal(400);
    });
  });
});
