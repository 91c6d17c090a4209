/**
 * "Send a new portal link" in the console answers with what became of the message (and, in the sandbox, the new link
 * shown once). The mail dispatcher claims every pending message it finds; a message the console had recorded but not
 * yet claimed could be taken by it first, and the page then had no outcome and no link (seen once in CI). Here the
 * dispatcher's claim runs in a loop beside each send, as the running dispatcher would.
 */
import { expect } from 'chai';
import { createOrganization } from '../../core/access/organizations';
import { claimDueNotifications } from '../../core/notifications/debtor-notifications';
import { createLogger } from '../../core/platform/logger';
import { newId } from '../../core/platform/ids';
import { sendNewPortalLink } from '../../core/staff/console-portal-links';
import type { StaffActor } from '../../core/staff/staff-actor';
import { createStaffUser } from '../../core/staff/staff-users';
import { testDb } from '../support/resources';

const SENDS = 25;

describe('console portal link beside the mail dispatcher', () => {
  let organizationId: string;
  let debtId: string;
  let actor: StaffActor;

  before(async () => {
    const db = testDb();
    ({ id: organizationId } = await createOrganization(db, { name: 'portal link race', mode: 'sandbox' }));
    const debtorId = newId();
    debtId = newId();
    await db('debtors').insert({
      id: debtorId,
      organization_id: organizationId,
      reference_id: `RACE-${debtorId}`,
      first_name: 'Race',
      last_name: 'Debtor',
      email: `race-${debtorId}@example.com`,
    });
    await db('debts').insert({
      id: debtId,
      organization_id: organizationId,
      debtor_id: debtorId,
      external_account_id: `RACE-${debtId}`,
      original_principal: '100.00',
      outstanding_principal: '100.00',
      currency: 'AUD',
      status: 'Active',
    });
    const email = `admin-${newId()}@example.test`;
    const admin = await createStaffUser(db, organizationId, { email, role: 'admin' });
    actor = { userId: admin.id, organizationId, email, role: 'admin' };
  });
  after(async () => {
    await testDb()('organizations').where({ id: organizationId }).delete();
  });

  it('every send reports its own outcome and shows its link, however eagerly the dispatcher claims', async () => {
    const deps = {
      db: testDb(),
      mode: 'sandbox' as const,
      publicBaseUrl: 'http://localhost:3001',
      logger: createLogger({ level: 'silent', name: 'test' }),
    };
    let sending = true;
    let dispatcherClaims = 0;
    const dispatcher = (async () => {
      while (sending) {
        const claimed = await claimDueNotifications(testDb(), 'sandbox', 10);
        dispatcherClaims += claimed.filter((row) => row.organization_id === organizationId).length;
      }
    })();
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < SENDS; i++) {
        const sent = await sendNewPortalLink(deps, actor, debtId);
        outcomes.push(`${sent.outcome}:${sent.sandboxLink ? 'link' : 'no link'}`);
      }
    } finally {
      sending = false;
      await dispatcher;
    }
    expect(outcomes).to.deep.equal(Array.from({ length: SENDS }, () => 'recorded:link'));
    expect(dispatcherClaims, 'the dispatcher took none of the console’s messages').to.equal(0);
    const rows = await testDb()('debtor_notifications').where({ organization_id: organizationId, debt_id: debtId });
    expect(rows.map((r: { status: string }) => r.status)).to.deep.equal(
      Array.from({ length: SENDS }, () => 'recorded'),
    );
  });
});
