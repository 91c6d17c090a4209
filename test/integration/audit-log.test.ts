/**
 * The console's audit log (issue 27): minting and revoking a key from the console each leave one entry naming the
 * actor and the key, in the change's own transaction, with no secret in it; entries are the organisation's and the
 * mode's own.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { listAudit } from '../../core/staff/audit-log';
import { mintConsoleKey, revokeConsoleKey, type StaffActor } from '../../core/staff/console-keys';
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

    const entries = await listAudit(testDb(), organization.id, 'production');
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
    expect(await listAudit(testDb(), organization.id, 'sandbox')).to.deep.equal([]);
  });
});
