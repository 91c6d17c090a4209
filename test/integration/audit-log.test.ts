/**
 * The console's audit log: minting and revoking a key from the console each leave one entry naming the
 * actor and the key, in the change's own transaction, with no secret in it; entries are the organisation's and the
 * mode's own; pages follow the (time, id) keyset, so entries of one millisecond are neither skipped nor repeated.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { listAudit, recordAudit } from '../../core/staff/audit-log';
import { mintConsoleKey, revokeConsoleKey } from '../../core/staff/console-keys';
import type { StaffActor } from '../../core/staff/staff-actor';
import { createStaffUser } from '../../core/staff/staff-users';
import { testDb } from '../support/resources';

describe('console audit log', () => {
  it('records a key minted and revoked by a console user, without the secret', async () => {
    const organization = await createOrganization(testDb(), { name: 'Audit Org', mode: 'production' });
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
    const user = await createStaffUser(testDb(), organization.id, { email, role: 'owner' });
    const actor: StaffActor = { userId: user.id, organizationId: organization.id, email, role: 'owner' };

    const { apiKey, secret } = await mintConsoleKey(testDb(), actor, 'production', {
      name: 'CI',
      scopes: ['debts:read'],
      readOnly: true,
    });
    await revokeConsoleKey(testDb(), actor, 'production', apiKey.id);
    await revokeConsoleKey(testDb(), actor, 'production', apiKey.id); // already revoked: no second entry

    const entries = (await listAudit(testDb(), organization.id, 'production')).data;
    expect(entries.map((e) => [e.action, e.target, e.actorEmail])).to.deep.equal([
      ['key.revoked', apiKey.id, email],
      ['key.minted', apiKey.id, email],
    ]);
    expect(entries[1]!.details).to.deep.equal({
      prefix: apiKey.prefix,
      name: 'CI',
      scopes: ['debts:read'],
      readOnly: true,
    });
    expect(JSON.stringify(entries)).not.to.include(secret);
    expect((await listAudit(testDb(), organization.id, 'sandbox')).data).to.deep.equal([]);
  });

  it('pages through entries written in the same millisecond by (time, id): each exactly once, newest first', async () => {
    const organization = await createOrganization(testDb(), { name: 'Audit Paging Org', mode: 'sandbox' });
    const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
    const user = await createStaffUser(testDb(), organization.id, { email, role: 'owner' });
    const actor: StaffActor = { userId: user.id, organizationId: organization.id, email, role: 'owner' };
    // One transaction: every entry's created_at is its start (now()), the same millisecond for all eleven.
    await testDb().transaction(async (trx) => {
      for (let i = 0; i < 11; i += 1) {
        await recordAudit(trx, actor, 'sandbox', { action: 'sandbox.reset_requested', target: `entry-${i}` });
      }
    });
    const rows = await testDb()('audit_log').where({ organization_id: organization.id }).select('id', 'created_at');
    expect(new Set(rows.map((r: { created_at: Date }) => r.created_at.getTime())).size).to.equal(1);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listAudit(testDb(), organization.id, 'sandbox', { limit: 3, cursor });
      seen.push(...page.data.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).to.equal(4);
    expect(seen).to.have.length(11);
    // Exactly the entries, each once, in the list's order (newest first; the id breaks the tie).
    const expected = rows
      .map((r: { id: string }) => r.id)
      .sort()
      .reverse();
    expect(seen).to.deep.equal(expected);
  });

  it('refuses a cursor that is not the audit log’s', async () => {
    const organization = await createOrganization(testDb(), { name: 'Audit Cursor Org', mode: 'sandbox' });
    const bad = Buffer.from(JSON.stringify({ l: 'debts', t: new Date().toISOString(), i: randomUUID() })).toString(
      'base64url',
    );
    const refused = await listAudit(testDb(), organization.id, 'sandbox', { limit: 3, cursor: bad }).catch(
      (e: unknown) => e,
    );
    expect(refused).to.have.property('code', 'invalid_request');
  });
});
