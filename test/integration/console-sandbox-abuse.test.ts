/**
 * The sandbox host's console cannot be used to learn which addresses have accounts, nor to mail strangers without
 * end (issue 37, item 10): the sign-up form answers the same page for a known and a new address, and the mail says
 * the rest (a sign-in link, or the link that creates the sandbox); mail to one address is capped; invitations are
 * limited per organisation and per invited address. Real app, real Redis and PostgreSQL, mail read from a real sink.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createOrganization } from '../../core/access/organizations';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { INVITATION_LIMITS } from '../../core/staff/invitation-limits';
import { SIGNUP_CONFIRM_PATH, SIGNUP_MAILS_PER_EMAIL_PER_HOUR } from '../../core/staff/signup-requests';
import { createStaffUser } from '../../core/staff/staff-users';
import { startTestServer, type TestServer } from '../support/app';
import { consoleVisitor } from '../support/console-http';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { testDb } from '../support/resources';

describe('console on the sandbox host: no account enumeration, no mail cannon', function () {
  this.timeout(60_000);
  let sink: MailSink;
  let mailer: Mailer;
  let server: TestServer;
  const newEmail = (who: string) => `${who}-${randomUUID()}@example.test`;

  before(async () => {
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
    server = await startTestServer({
      mode: 'sandbox',
      deps: { mailer },
      env: { SANDBOX_SIGNUPS_PER_HOUR: '1000' },
    });
  });
  after(async () => {
    await server.close();
    mailer.close();
    await sink.stop();
  });

  /** An anonymous form's POST, with the pre-session cookie and token its page hands out. */
  async function anonymousPost(pagePath: string, action: string, fields: Record<string, string>) {
    const page = await fetch(`${server.baseUrl}${pagePath}`);
    const cookie = page.headers.getSetCookie()[0]!.split(';')[0]!;
    const csrf = /name="_csrf" value="([A-Za-z0-9_-]{43})"/.exec(await page.text())![1]!;
    const res = await fetch(`${server.baseUrl}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: server.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });
    const text = await res.text();
    return { status: res.status, text, main: /<main[^>]*>([\s\S]*)<\/main>/.exec(text)?.[1] ?? text };
  }

  const signUp = (email: string, organizationName = 'Abuse Test Org') =>
    anonymousPost('/console/sign-up', '/console/sign-up', { organizationName, email });

  it('answers a sign-up the same for an address with an account and one without, and says the rest by mail', async () => {
    const existing = await createOrganization(testDb(), { name: 'Existing', mode: 'sandbox' });
    const known = newEmail('known');
    await createStaffUser(testDb(), existing.id, { email: known, role: 'owner' });
    const fresh = newEmail('fresh');

    const forKnown = await signUp(known.toUpperCase());
    const forFresh = await signUp(fresh);
    expect([forKnown.status, forFresh.status]).to.deep.equal([200, 200]);
    expect(forKnown.main).to.equal(forFresh.main);
    expect(forKnown.main).to.contain('Check your email').and.not.contain('already');

    const knownMail = await sink.nthMailTo(known, 1);
    expect(knownMail.subject).to.equal('You already have a console account');
    expect(knownMail.text).to.match(/\/console\/sign-in\/link\?token=[A-Za-z0-9_-]{43}/);
    const freshMail = await sink.nthMailTo(fresh, 1);
    expect(freshMail.subject).to.equal('Confirm your sandbox');
    // Nothing is created before the link is used.
    expect(await testDb()('staff_users').where({ email: fresh }).first()).to.equal(undefined);
    expect(await testDb()('staff_users').where({ organization_id: existing.id }).count('* as n')).to.deep.equal([
      { n: 1 },
    ]);

    const token = new RegExp(`${SIGNUP_CONFIRM_PATH}\\?token=([A-Za-z0-9_-]{43})`).exec(freshMail.text)![1]!;
    const landing = `${SIGNUP_CONFIRM_PATH}?token=${token}`;
    const created = await anonymousPost(landing, SIGNUP_CONFIRM_PATH, { token });
    expect(created.status).to.equal(201);
    expect(created.main)
      .to.contain('Abuse Test Org')
      .and.match(/ak_test_[A-Za-z0-9]{32,}/);
    const owner = await testDb()('staff_users').where({ email: fresh }).first();
    expect(owner).to.include({ role: 'owner' });
    // Once only.
    const again = await anonymousPost(landing, SIGNUP_CONFIRM_PATH, { token });
    expect(again.status).to.equal(400);
    expect(await testDb()('staff_users').where({ email: fresh }).count('* as n')).to.deep.equal([{ n: 1 }]);
    await testDb()('organizations').whereIn('id', [existing.id, owner!.organization_id]).delete();
  });

  it('caps the sign-up mail one address gets, with the same answer past the cap', async () => {
    const target = newEmail('target');
    for (let i = 0; i < SIGNUP_MAILS_PER_EMAIL_PER_HOUR; i += 1) {
      expect((await signUp(target)).status).to.equal(200);
    }
    await sink.nthMailTo(target, SIGNUP_MAILS_PER_EMAIL_PER_HOUR);
    const past = await signUp(target);
    expect(past.status).to.equal(200);
    expect(past.main).to.contain('Check your email');
    const marker = newEmail('marker');
    await signUp(marker);
    await sink.nthMailTo(marker, 1);
    expect(await sink.mailTo(target)).to.have.length(SIGNUP_MAILS_PER_EMAIL_PER_HOUR);
  });

  describe('invitations', () => {
    async function sandboxOwner() {
      const organization = await createOrganization(testDb(), { name: 'Inviting Org', mode: 'sandbox' });
      const email = newEmail('owner');
      const user = await createStaffUser(testDb(), organization.id, { email, role: 'owner' });
      const visitor = await consoleVisitor(server.baseUrl, 'sandbox', {
        userId: user.id,
        organizationId: organization.id,
        email,
        role: 'owner',
      });
      return { organization, visitor };
    }

    it(`allows an organisation ${INVITATION_LIMITS.sandbox.perOrganization} a day, then answers the 429 page and mails nothing`, async () => {
      const { organization, visitor } = await sandboxOwner();
      try {
        for (let i = 0; i < INVITATION_LIMITS.sandbox.perOrganization; i += 1) {
          const invited = await visitor.post('/console/team', { email: newEmail('invitee'), role: 'viewer' });
          expect(invited.status, `invitation ${i + 1}`).to.equal(303);
        }
        const over = newEmail('over');
        const refused = await visitor.post('/console/team', { email: over, role: 'viewer' });
        expect(refused.status).to.equal(429);
        expect(refused.text).to.contain('invitations for today');
        expect(await testDb()('staff_users').where({ email: over }).first()).to.equal(undefined);
      } finally {
        await testDb()('organizations').where({ id: organization.id }).delete();
      }
    });

    it(`mails one address at most ${INVITATION_LIMITS.sandbox.perAddress} invitations a day, whoever invites and removes it`, async () => {
      const { organization, visitor } = await sandboxOwner();
      const target = newEmail('target');
      try {
        for (let i = 0; i < INVITATION_LIMITS.sandbox.perAddress; i += 1) {
          expect((await visitor.post('/console/team', { email: target, role: 'viewer' })).status).to.equal(303);
          const { id } = (await testDb()('staff_users').where({ email: target }).first('id'))!;
          const removed = await visitor.post(`/console/team/${id}/remove`, {}, `/console/team/${id}/remove`);
          expect(removed.status).to.equal(303);
        }
        await sink.nthMailTo(target, INVITATION_LIMITS.sandbox.perAddress);
        const refused = await visitor.post('/console/team', { email: target, role: 'viewer' });
        expect(refused.status).to.equal(429);
        expect(refused.text).to.contain('invited too often');
        expect(await testDb()('staff_users').where({ email: target }).first()).to.equal(undefined);
        expect(await sink.mailTo(target)).to.have.length(INVITATION_LIMITS.sandbox.perAddress);
      } finally {
        await testDb()('organizations').where({ id: organization.id }).delete();
      }
    });
  });
});
