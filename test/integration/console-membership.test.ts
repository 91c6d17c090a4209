/**
 * Each console request acts as `staff_users` has the user now, not as their session remembers them (issue 37, item
 * 7): a removed user's next request is refused even when ending their sessions failed, and a demoted owner's next
 * request acts as a viewer. Ending the sessions is made to fail for real: the user's session index in Redis is
 * replaced by a string, so the store's SMEMBERS answers WRONGTYPE. And a session of one host is none on the other.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createOrganization } from '../../core/access/organizations';
import { MEMBERSHIP_TTL_MS } from '../../core/staff/membership';
import { createStaffUser, type StaffRole, type StaffUser } from '../../core/staff/staff-users';
import { startTestServer, type TestServer } from '../support/app';
import { consoleVisitor, newConsoleSession, visitorWithSession, type ConsoleVisitor } from '../support/console-http';
import { testDb, testRedis } from '../support/resources';

describe('console: every request re-reads the user’s membership and role', function () {
  this.timeout(30_000);
  let server: TestServer;
  let clock = Date.now();
  let organizationId: string;

  before(async () => {
    server = await startTestServer({ deps: { consoleNow: () => new Date(clock) } });
    organizationId = (await createOrganization(testDb(), { name: 'Membership Org', mode: 'production' })).id;
  });
  after(async () => {
    await testDb()('organizations').where({ id: organizationId }).delete();
    await server.close();
  });

  async function member(role: StaffRole): Promise<{ user: StaffUser; visitor: ConsoleVisitor }> {
    const email = `${role}-${randomUUID()}@example.test`;
    const user = await createStaffUser(testDb(), organizationId, { email, role });
    const visitor = await consoleVisitor(server.baseUrl, 'production', {
      userId: user.id,
      organizationId,
      email,
      role,
    });
    return { user, visitor };
  }

  /** Makes the store's "end every session of the user" fail: its index of the user's sessions is no longer a set. */
  async function breakSessionIndex(userId: string): Promise<void> {
    await testRedis().set(`production:console:user-sessions:${userId}`, 'not a set');
  }

  const invite = (visitor: ConsoleVisitor) =>
    visitor.post('/console/team', { email: `new-${randomUUID()}@example.test`, role: 'viewer' });

  it('refuses a removed user’s next request though ending their sessions failed', async () => {
    const { visitor: owner } = await member('owner');
    const { user: removed, visitor } = await member('admin');
    expect((await visitor.get('/console')).status).to.equal(200); // their membership is now cached
    await breakSessionIndex(removed.id);

    const removal = await owner.post(`/console/team/${removed.id}/remove`, {}, `/console/team/${removed.id}/remove`);
    expect(removal.status).to.equal(303);
    expect(removal.location).to.equal('/console/team?done=removed');
    expect(await testDb()('staff_users').where({ id: removed.id }).first()).to.equal(undefined);

    const next = await visitor.get('/console');
    expect(next.status).to.equal(302);
    expect(next.location).to.equal('/console/sign-in');
    const write = await visitor.post('/console/sign-out-everywhere', {}, '/console');
    expect(write.status).to.equal(401);
  });

  it('refuses a user deleted in SQL (no session ended at all) at their next request after the cache’s seconds', async () => {
    const { user, visitor } = await member('developer');
    expect((await visitor.get('/console/keys')).status).to.equal(200);
    await testDb()('staff_users').where({ id: user.id }).delete();
    clock += MEMBERSHIP_TTL_MS + 1;
    const next = await visitor.get('/console/keys');
    expect(next.status).to.equal(302);
    expect(next.location).to.equal('/console/sign-in');
  });

  it('acts with the new role after a demotion in SQL: an owner-only write is refused', async () => {
    const { user, visitor } = await member('owner');
    await member('owner'); // another owner, so the organisation keeps one
    expect((await visitor.get('/console/team')).text).to.contain('Invite');
    await testDb()('staff_users').where({ id: user.id }).update({ role: 'viewer' });
    clock += MEMBERSHIP_TTL_MS + 1;
    const refused = await invite(visitor);
    expect(refused.status).to.equal(403);
    expect(refused.text).to.contain('Only an owner can invite');
    expect((await visitor.get('/console/team')).text).not.to.contain('name="email"');
  });

  it('acts with the new role at once after a demotion on the Team page whose session ending failed', async () => {
    const { visitor: owner } = await member('owner');
    const { user: demoted, visitor } = await member('owner');
    expect((await invite(visitor)).status).to.equal(303);
    await breakSessionIndex(demoted.id);
    const change = await owner.post(`/console/team/${demoted.id}/role`, { role: 'viewer' }, '/console/team');
    expect(change.status).to.equal(303);
    expect(change.location).to.equal('/console/team?done=role-changed');
    const refused = await invite(visitor);
    expect(refused.status).to.equal(403);
  });

  it('takes a session of the production host for none on the sandbox host', async () => {
    const sandbox = await startTestServer({ mode: 'sandbox' });
    try {
      const { user } = await member('owner');
      const id = await newConsoleSession('production', {
        userId: user.id,
        organizationId,
        email: user.email,
        role: 'owner',
      });
      expect((await visitorWithSession(server.baseUrl, id).get('/console')).status).to.equal(200);
      const elsewhere = await visitorWithSession(sandbox.baseUrl, id).get('/console');
      expect(elsewhere.status).to.equal(302);
      expect(elsewhere.location).to.equal('/console/sign-in');
    } finally {
      await sandbox.close();
    }
  });
});
