/**
 * Every page carries the pages' security headers, set once per request by its family's middleware for pages, error
 * pages and refusals alike (web/page.ts): under /portal with the portal's own policy (web/portal/portal-pages.tsx; a
 * portal path is the portal's alone, api/app.ts), the console's and the email opt-out's with the default policy.
 */
import { expect } from 'chai';
import { PAGE_CSP } from '../../web/page';
import { PORTAL_CSP } from '../../web/portal/portal-context';
import { seedPortalDebt, signInToPortal, type PortalDebt } from '../bench/seed-portal';
import { testEnv } from '../support/env';
import { testDb } from '../support/resources';
import { startTestServer, type TestServer } from '../support/app';

const PAGE_HEADERS = {
  'content-security-policy': PORTAL_CSP,
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

function pageHeadersOf(res: Response): Record<string, string | null> {
  return Object.fromEntries(Object.keys(PAGE_HEADERS).map((name) => [name, res.headers.get(name)]));
}

describe('portal pages: security headers on every answer', () => {
  let server: TestServer;
  let signed: PortalDebt;

  before(async () => {
    server = await startTestServer();
    const visit = await seedPortalDebt(testDb());
    signed = await signInToPortal(visit, { databaseUrl: testEnv.databaseUrl, redisUrl: testEnv.redisUrl });
  });
  after(async () => {
    await testDb()('organizations').where({ id: signed.visit.organizationId }).delete();
    await server.close();
  });

  const cases: [string, string, RequestInit & { visit?: boolean }, number][] = [
    ['the debt page of a verified visit', '/portal/debt', { visit: true }, 200],
    ['the same page without a visit (the error page)', '/portal/debt', {}, 401],
    ['a page that does not exist', '/portal/nowhere', { visit: true }, 404],
    ['a method the page does not take', '/portal/debt', { visit: true, method: 'DELETE' }, 405],
    ['an asset that does not exist', '/portal/assets/site.000000000000.css', {}, 404],
  ];
  for (const [name, path, init, status] of cases) {
    it(`${name}: ${status}, an HTML page with the portal's headers`, async () => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: init.visit ? { cookie: signed.cookie } : {},
        redirect: 'manual',
      });
      const html = await res.text();
      expect(res.status).to.equal(status);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(html.startsWith('<!doctype html><html lang="en">')).to.equal(true);
      expect(pageHeadersOf(res)).to.deep.equal(PAGE_HEADERS);
    });
  }

  it('the verified page is the branded debt page, with the visit’s token in its sign-out form', async () => {
    const res = await fetch(`${server.baseUrl}/portal/debt`, { headers: { cookie: signed.cookie } });
    const html = await res.text();
    expect(html).to.include('Fair terms, plainly put').and.include('<h1>Your account</h1>');
    expect(html).to.match(
      /<form method="post" action="\/portal\/sign-out"[^>]*><input type="hidden" name="_csrf" value="[A-Za-z0-9_-]{43}"/,
    );
  });
});

describe('console and email opt-out pages: security headers on every answer', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const cases: [string, string, number][] = [
    ['the console’s sign-in page', '/console/sign-in', 200],
    ['a console page that does not exist', '/console/nowhere', 404],
    ['an opt-out link that does not work', '/notifications/opt-out/not-a-token', 404],
  ];
  for (const [name, path, status] of cases) {
    it(`${name}: ${status}, an HTML page with the pages' headers`, async () => {
      const res = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual' });
      const html = await res.text();
      expect(res.status).to.equal(status);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(html.startsWith('<!doctype html><html lang="en">')).to.equal(true);
      expect(pageHeadersOf(res)).to.deep.equal({ ...PAGE_HEADERS, 'content-security-policy': PAGE_CSP });
    });
  }
});
