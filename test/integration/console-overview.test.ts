/**
 * The console Overview's reads (core/staff/console-overview.ts) on the real database: open debts counted by status,
 * the failures of the last 7 days listed newest first and counted, each scoped to the organisation. Its statements are
 * named (planned generically, for any tenant), so they are checked here on data, not only through the page.
 */
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { createOrganization } from '../../core/access/organizations';
import { DEBT_STATUSES, NON_TERMINAL_STATUSES } from '../../core/debts/debt-status';
import { loadConsoleOverview } from '../../core/staff/console-overview';
import { seedDebts } from '../bench/seed-debts';
import { testDb } from '../support/resources';

const DAY_MS = 86_400_000;

/** An event and its delivery in `status`, last changed `updatedAgoMs` before now; returns the delivery's id. */
async function delivery(organizationId: string, status: 'Succeeded' | 'Failed', updatedAgoMs: number): Promise<string> {
  const db = testDb();
  const eventId = `evt_${randomBytes(16).toString('hex')}`;
  const at = new Date(Date.now() - updatedAgoMs);
  await db('events').insert({ id: eventId, organization_id: organizationId, type: 'debt.created', data: {} });
  const id = randomUUID();
  await db('webhook_deliveries').insert({
    id,
    organization_id: organizationId,
    event_id: eventId,
    event_type: 'debt.created',
    url: 'https://receiver.example.com/hooks',
    secret_iv: Buffer.alloc(1),
    secret_tag: Buffer.alloc(1),
    secret_ciphertext: Buffer.alloc(1),
    status,
    attempt_count: status === 'Failed' ? 6 : 1,
    created_at: at,
    updated_at: at,
  });
  return id;
}

describe('console Overview reads (open debts by status, failures of the week)', () => {
  it('counts the open debts by status and lists and counts the week’s failures, newest first, of this organisation only', async () => {
    const db = testDb();
    const [org, other, empty] = await Promise.all([
      createOrganization(db, { name: 'overview reads', mode: 'production' }),
      createOrganization(db, { name: 'overview reads, another tenant', mode: 'production' }),
      createOrganization(db, { name: 'overview reads, nothing yet', mode: 'production' }),
    ]);
    try {
      // seedDebts gives debt i the status DEBT_STATUSES[i % 8]: 21 debts, so statuses 1–5 once more than the rest.
      await seedDebts(db, org.id, 21);
      await seedDebts(db, other.id, 9);
      const newest = await delivery(org.id, 'Failed', 60_000);
      const older = await delivery(org.id, 'Failed', 3 * DAY_MS);
      await delivery(org.id, 'Failed', 8 * DAY_MS); // outside the window
      await delivery(org.id, 'Succeeded', 60_000);
      await delivery(other.id, 'Failed', 60_000);

      const overview = await loadConsoleOverview(db, org.id);

      const expected = NON_TERMINAL_STATUSES.map((status) => ({
        status,
        count: [...Array(21).keys()].filter((i) => DEBT_STATUSES[(i + 1) % DEBT_STATUSES.length] === status).length,
      }));
      expect(overview.openDebts).to.deep.equal(expected);
      expect(overview.failedDeliveryCount).to.equal(2);
      expect(overview.failedDeliveries.map((d) => d.id)).to.deep.equal([newest, older]);
      expect(overview.failedDeliveries[0]).to.include({
        eventType: 'debt.created',
        url: 'https://receiver.example.com/hooks',
      });

      const nothing = await loadConsoleOverview(db, empty.id);
      expect(nothing.openDebts.map((row) => row.count)).to.deep.equal(NON_TERMINAL_STATUSES.map(() => 0));
      expect(nothing.failedDeliveryCount).to.equal(0);
      expect(nothing.failedDeliveries).to.deep.equal([]);
    } finally {
      await db('organizations').whereIn('id', [org.id, other.id, empty.id]).delete();
    }
  });
});
