/**
 * The console's and the portal's forms refuse a control character in any field before anything is read from it or
 * stored (web/console/shared/http.ts readForm): a 400 page that names the field and the character, not a stored
 * value that could later forge structure in a page built from it.
 */
import { expect } from 'chai';
import { hashPortalToken, issuePortalLink, PORTAL_LINK_PATH } from '../../core/portal/links';
import type { PortalVisit } from '../../core/portal/portal-sessions';
import { seedPortalDebt } from '../bench/seed-portal';
import { startTestServer, type TestServer } from '../support/app';
import { clearPortalTries } from '../support/portal-browser';
import { testDb, testRedis } from '../support/resources';

describe('console and portal forms: control characters refused', () => {
  let server: TestServer;
  let visit: PortalVisit;
  before(async () => {
    server = await startTestServer();
    visit = await seedPortalDebt(testDb());
    await clearPortalTries();
  });
  after(async () => {
    await testDb()('organizations').where({ id: visit.organizationId }).delete();
    await server.close();
  });

  async function post(path: string, fields: Record<string, string>): Promise<{ status: number; text: string }> {
    const page = await fetch(`${server.baseUrl}${path}`);
    const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const csrf = /name="_csrf" value="([A-Za-z0-9_-]{43})"/.exec(await page.text())![1]!;
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
    return { status: res.status, text: await res.text() };
  }

  it('the console’s sign-in form: an email with U+0001 is a 400 page naming the field', async () => {
    const answer = await post('/console/sign-in', { email: 'dev\u0001@creditor.example' });
    expect(answer.status).to.equal(400);
    expect(answer.text).to.contain('email').and.contain('must not contain a control character (U+0001)');
  });

  it('the portal’s second-factor form: an escape character is a 400 page, and takes no try', async () => {
    const { token } = await issuePortalLink(testDb(), { organizationId: visit.organizationId, debtId: visit.debtId });
    const answer = await post(`${PORTAL_LINK_PATH}${token}`, { accountReference: 'x', surname: 'Debtor\u001b[31m' });
    expect(answer.status).to.equal(400);
    expect(answer.text).to.contain('must not contain a control character (U+001B)');
    expect(await testRedis().get(`production:portal:verify-fails:link:${hashPortalToken(token)}`)).to.equal(null);
  });
});
