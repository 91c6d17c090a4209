import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createOrganization } from '../../core/access/organizations';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { createLogger } from '../../core/platform/logger';
import { redisReady } from '../../core/platform/redis';
import {
  consumeSignInLink,
  requestSignInLink,
  SIGN_IN_LINK_PATH,
  SIGN_IN_LINK_TTL_MS,
  type SignInLinkDeps,
} from '../../core/staff/magic-links';
import { createStaffUser, listStaffUsers, StaffEmailTakenError } from '../../core/staff/staff-users';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { testDb, testRedis } from '../support/resources';

const FROM = 'Client console <console@example.test>';

describe('Staff sign-in links, mailed through a real SMTP sink', function () {
  this.timeout(60_000);
  let sink: MailSink;
  let mailer: Mailer;
  let clock: Date;
  let deps: SignInLinkDeps;

  before(async () => {
    await redisReady(testRedis());
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: FROM });
  });
  after(async () => {
    mailer.close();
    await sink.stop();
  });
  beforeEach(() => {
    clock = new Date();
    deps = {
      db: testDb(),
      redis: testRedis(),
      mailer,
      logger: createLogger({ level: 'silent', name: 'test' }),
      publicBaseUrl: 'http://localhost:3000',
      mode: 'production',
      limits: { perEmailAndAddress: 5, perAddress: 8, perEmail: 12 },
      now: () => clock,
    };
  });

  async function newUser(role: 'owner' | 'viewer' = 'owner') {
    const organization = await createOrganization(testDb(), { name: 'Console Org', mode: 'production' });
    const email = `staff-${randomUUID()}@example.test`;
    const user = await createStaffUser(testDb(), organization.id, { email, role });
    return { organization, user, email };
  }

  const address = () => `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID()}`;

  function tokenOf(text: string): string {
    const match = new RegExp(`http://localhost:3000${SIGN_IN_LINK_PATH}\\?token=([A-Za-z0-9_-]{43})`).exec(text);
    expect(match, text).to.not.equal(null);
    return (match as RegExpExecArray)[1] as string;
  }

  it('mails a plain-text link from the configured From, carrying nothing but the link', async () => {
    const { email } = await newUser();
    expect(await requestSignInLink(deps, { email: email.toUpperCase(), clientAddress: address() })).to.equal(
      'sent-if-known',
    );
    const mail = await sink.nthMailTo(email, 1);
    expect(mail.from[0]).to.deep.include({ address: 'console@example.test', name: 'Client console' });
    expect(mail.subject).to.equal("Your sign-in link to Console Org's live client console");
    const token = tokenOf(mail.text);
    const stored = await testDb()('staff_sign_in_tokens').select('token_hash');
    expect(stored.map((r) => r.token_hash)).to.not.include(token);
  });

  it('signs in once: the same link a second time is refused', async () => {
    const { user, email, organization } = await newUser();
    await requestSignInLink(deps, { email, clientAddress: address() });
    const token = tokenOf((await sink.nthMailTo(email, 1)).text);
    expect(await consumeSignInLink(deps, token)).to.deep.equal({
      userId: user.id,
      email,
      organizationId: organization.id,
      role: 'owner',
    });
    expect(await consumeSignInLink(deps, token)).to.equal(null);
  });

  it('refuses a link after its 15 minutes, by the injected clock', async () => {
    const { email } = await newUser();
    await requestSignInLink(deps, { email, clientAddress: address() });
    const token = tokenOf((await sink.nthMailTo(email, 1)).text);
    clock = new Date(clock.getTime() + SIGN_IN_LINK_TTL_MS + 1);
    expect(await consumeSignInLink(deps, token)).to.equal(null);
  });

  it('answers the same for an unknown address and sends it nothing', async () => {
    const email = `nobody-${randomUUID()}@example.test`;
    expect(await requestSignInLink(deps, { email, clientAddress: address() })).to.equal('sent-if-known');
    const { email: known } = await newUser();
    await requestSignInLink(deps, { email: known, clientAddress: address() });
    await sink.nthMailTo(known, 1);
    expect(await sink.mailTo(email)).to.deep.equal([]);
  });

  it('limits one requester per (email, address) and per address, so a stranger cannot keep an owner out', async () => {
    const { email } = await newUser();
    const attacker = address();
    for (let i = 0; i < 5; i += 1) await requestSignInLink(deps, { email, clientAddress: attacker });
    expect(await requestSignInLink(deps, { email, clientAddress: attacker })).to.equal('rate-limited');
    // The owner, from their own address, still gets a link: the sixth mail, after the attacker's five.
    expect(await requestSignInLink(deps, { email, clientAddress: address() })).to.equal('sent-if-known');
    tokenOf((await sink.nthMailTo(email, 6)).text);

    const shared = address();
    for (let i = 0; i < 8; i += 1) {
      await requestSignInLink(deps, { email: `x-${randomUUID()}@example.test`, clientAddress: shared });
    }
    expect(await requestSignInLink(deps, { email: `y-${randomUUID()}@example.test`, clientAddress: shared })).to.equal(
      'rate-limited',
    );
  });

  it('caps the links mailed to one email per 15 minutes with the usual answer, and a refused request spends none', async () => {
    const { email } = await newUser();
    const attacker = address();
    for (let i = 0; i < 7; i += 1) await requestSignInLink(deps, { email, clientAddress: attacker });
    // The attacker's two refused requests took nothing from the email's 12: ten more addresses get ten more links.
    for (let i = 0; i < 7; i += 1) {
      expect(await requestSignInLink(deps, { email, clientAddress: address() })).to.equal('sent-if-known');
    }
    await sink.nthMailTo(email, 12);
    // The 13th within the window: the same answer as ever, and no mail.
    expect(await requestSignInLink(deps, { email, clientAddress: address() })).to.equal('sent-if-known');
    const { email: other } = await newUser();
    await requestSignInLink(deps, { email: other, clientAddress: address() });
    await sink.nthMailTo(other, 1);
    expect(await sink.mailTo(email)).to.have.length(12);
    // The last link mailed still works: the cap leaves the inbox a way in.
    const last = tokenOf((await sink.mailTo(email))[11]!.text);
    expect(await consumeSignInLink(deps, last)).to.include({ email });
  });

  it('counts each host apart: a requester limited on production still asks on the sandbox host', async () => {
    const { email } = await newUser();
    const from = address();
    for (let i = 0; i < 5; i += 1) await requestSignInLink(deps, { email, clientAddress: from });
    expect(await requestSignInLink(deps, { email, clientAddress: from })).to.equal('rate-limited');
    const sandbox: SignInLinkDeps = { ...deps, mode: 'sandbox', publicBaseUrl: 'http://localhost:3001' };
    expect(await requestSignInLink(sandbox, { email, clientAddress: from })).to.equal('sent-if-known');
    const keys = await testRedis().keys(`*:console:sign-in:address:${from}`);
    expect(keys.sort()).to.deep.equal([
      `production:console:sign-in:address:${from}`,
      `sandbox:console:sign-in:address:${from}`,
    ]);
  });

  it('refuses malformed tokens without a query, and a second account for one email', async () => {
    expect(await consumeSignInLink(deps, "'; drop table staff_users; --")).to.equal(null);
    const { organization, email } = await newUser('viewer');
    let error: unknown;
    try {
      await createStaffUser(testDb(), organization.id, { email, role: 'admin' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(StaffEmailTakenError);
    expect((await listStaffUsers(testDb(), organization.id)).map((u) => u.role)).to.deep.equal(['viewer']);
  });
});
