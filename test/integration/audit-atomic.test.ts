/**
 * A console change and its audit entry commit together (issue 37, item 7): when the entry cannot be written, the
 * change is not made. The entry's insert is made to fail for real, by a trigger on `audit_log` that refuses the
 * entries of one target only (so tests running beside this one are untouched), dropped afterwards.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../core/platform/logger';
import type { AuditAction } from '../../core/staff/audit-log';
import { issuePortalLink, resolvePortalLink } from '../../core/portal/links';
import { revokeConsolePortalLink, sendNewPortalLink } from '../../core/staff/console-portal-links';
import { createMembershipCache } from '../../core/staff/membership';
import { createSessionStore } from '../../core/staff/sessions';
import type { StaffActor } from '../../core/staff/staff-actor';
import { createStaffUser } from '../../core/staff/staff-users';
import { removeTeamMember, type TeamDeps } from '../../core/staff/team';
import { seedPortalDebt } from '../bench/seed-portal';
import { testDb, testRedis } from '../support/resources';

const logger = createLogger({ level: 'silent', name: 'test' });

/** Refuses every audit entry whose target is `target` while `work` runs. */
async function withAuditRefusedFor<T>(target: string, work: () => Promise<T>): Promise<T> {
  const fn = `test_refuse_audit_${randomUUID().replace(/-/g, '')}`;
  const db = testDb();
  await db.raw(
    `create function ${fn}() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$`,
  );
  // DDL takes no bind parameters: the target (a uuid or an address made here) is quoted as a literal.
  const literal = `'${target.replace(/'/g, "''")}'`;
  await db.raw(
    `create trigger ${fn} before insert on audit_log for each row when (new.target = ${literal}) execute function ${fn}()`,
  );
  try {
    return await work();
  } finally {
    await db.raw(`drop trigger ${fn} on audit_log`);
    await db.raw(`drop function ${fn}()`);
  }
}

describe('console audit entries commit with their change', () => {
  let organizationId: string;
  let debtId: string;
  let actor: StaffActor;

  before(async () => {
    ({ organizationId, debtId } = await seedPortalDebt(testDb()));
    const email = `owner-${randomUUID()}@example.test`;
    const owner = await createStaffUser(testDb(), organizationId, { email, role: 'owner' });
    actor = { userId: owner.id, organizationId, email, role: 'owner' };
  });
  after(async () => {
    await testDb()('organizations').where({ id: organizationId }).delete();
  });

  const entries = (action: AuditAction) => testDb()('audit_log').where({ organization_id: organizationId, action });

  it('keeps the portal link live when the revocation’s entry cannot be written', async () => {
    const { token } = await issuePortalLink(testDb(), { organizationId, debtId });
    const refused = await withAuditRefusedFor(debtId, () =>
      revokeConsolePortalLink({ db: testDb(), mode: 'production' }, actor, debtId).catch((e: unknown) => e),
    );
    expect(refused).to.be.instanceOf(Error);
    expect(await resolvePortalLink(testDb(), token)).to.deep.include({ debtId });
    expect(await entries('portal_link.revoked')).to.deep.equal([]);

    expect(await revokeConsolePortalLink({ db: testDb(), mode: 'production' }, actor, debtId)).to.equal(true);
    expect(await resolvePortalLink(testDb(), token)).to.equal(null);
    expect(await entries('portal_link.revoked')).to.have.length(1);
  });

  it('neither revokes the old link nor records a message when a new link’s entry cannot be written', async () => {
    const { token } = await issuePortalLink(testDb(), { organizationId, debtId });
    const deps = { db: testDb(), mode: 'production' as const, publicBaseUrl: 'http://localhost:3000', logger };
    const refused = await withAuditRefusedFor(debtId, () =>
      sendNewPortalLink(deps, actor, debtId).catch((e: unknown) => e),
    );
    expect(refused).to.be.instanceOf(Error);
    expect(await resolvePortalLink(testDb(), token)).to.deep.include({ debtId });
    const messages = await testDb()('debtor_notifications')
      .where({ organization_id: organizationId, debt_id: debtId })
      .where('source_id', 'like', 'console_%');
    expect(messages).to.deep.equal([]);
  });

  it('keeps a team member when the removal’s entry cannot be written', async () => {
    const email = `member-${randomUUID()}@example.test`;
    const member = await createStaffUser(testDb(), organizationId, { email, role: 'admin' });
    const deps: TeamDeps = {
      db: testDb(),
      redis: testRedis(),
      logger,
      sessions: createSessionStore({
        redis: testRedis(),
        mode: 'production',
        settings: { idleTimeoutMs: 60_000, absoluteLifetimeMs: 3_600_000 },
      }),
      membership: createMembershipCache({ db: testDb() }),
      mail: {
        db: testDb(),
        mailer: { send: () => Promise.reject(new Error('no mail here')) } as never,
        publicBaseUrl: '',
        mode: 'production',
      },
    };
    const refused = await withAuditRefusedFor(email, () =>
      removeTeamMember(deps, actor, 'production', member.id).catch((e: unknown) => e),
    );
    expect(refused).to.be.instanceOf(Error);
    expect(await testDb()('staff_users').where({ id: member.id }).first()).to.include({ email });
  });
});
