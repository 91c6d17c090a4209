/**
 * The portal's second factor counts a try before it judges the answer, atomically (core/portal/second-factor.ts):
 * fifty answers sent at once against one link are judged at most as many times as the link's limit, the rest are
 * refused unjudged, and a right answer gives its try back. Real HTTP requests, all in flight together.
 */
import { expect } from 'chai';
import { issuePortalLink, PORTAL_LINK_PATH } from '../../core/portal/links';
import type { PortalVisit } from '../../core/portal/portal-sessions';
import { seedPortalDebt } from '../bench/seed-portal';
import { startTestServer, type TestServer } from '../support/app';
import { clearPortalTries } from '../support/portal-browser';
import { testDb } from '../support/resources';

const TRIES_PER_LINK = 5;

describe('portal second factor: tries counted before they are judged', () => {
  let server: TestServer;
  let visit: PortalVisit;

  before(async () => {
    server = await startTestServer({
      env: { PORTAL_TRIES_PER_LINK: String(TRIES_PER_LINK), PORTAL_TRIES_PER_ADDRESS: '1000' },
    });
    visit = await seedPortalDebt(testDb());
  });
  beforeEach(() => clearPortalTries());
  after(async () => {
    await testDb()('organizations').where({ id: visit.organizationId }).delete();
    await server.close();
  });

  /** The link's form: its pre-session cookie and token, as a browser gets them. */
  async function formOf(path: string): Promise<{ cookie: string; csrf: string }> {
    const res = await fetch(`${server.baseUrl}${path}`);
    const cookie = res.headers.getSetCookie()[0]!.split(';')[0]!;
    const csrf = /name="_csrf" value="([A-Za-z0-9_-]{43})"/.exec(await res.text())![1]!;
    return { cookie, csrf };
  }

  function answer(path: string, form: { cookie: string; csrf: string }, surname: string, reference: string) {
    return fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: form.csrf, accountReference: reference, surname }).toString(),
    });
  }

  async function reference(): Promise<string> {
    const row = await testDb()('debts').where({ id: visit.debtId }).first('external_account_id');
    return row!.external_account_id;
  }

  it(`fifty wrong answers at once: exactly ${TRIES_PER_LINK} are judged, the others refused (429); then even the right answer is refused`, async () => {
    const { token } = await issuePortalLink(testDb(), { organizationId: visit.organizationId, debtId: visit.debtId });
    const path = `${PORTAL_LINK_PATH}${token}`;
    const form = await formOf(path);
    const ref = await reference();
    const statuses = (await Promise.all(Array.from({ length: 50 }, () => answer(path, form, 'Wrong', ref)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 400)).to.have.length(TRIES_PER_LINK);
    expect(statuses.filter((s) => s === 429)).to.have.length(50 - TRIES_PER_LINK);
    expect((await answer(path, form, 'Debtor', ref)).status).to.equal(429);
  });

  it('a right answer gives its try back: the link still takes its full number of wrong answers after it', async () => {
    const { token } = await issuePortalLink(testDb(), { organizationId: visit.organizationId, debtId: visit.debtId });
    const path = `${PORTAL_LINK_PATH}${token}`;
    const ref = await reference();
    expect((await answer(path, await formOf(path), 'Debtor', ref)).status).to.equal(303);
    const form = await formOf(path);
    const statuses: number[] = [];
    for (let i = 0; i < TRIES_PER_LINK; i++) statuses.push((await answer(path, form, 'Wrong', ref)).status);
    expect(statuses).to.deep.equal(Array(TRIES_PER_LINK).fill(400));
    expect((await answer(path, form, 'Wrong', ref)).status).to.equal(429);
  });
});
