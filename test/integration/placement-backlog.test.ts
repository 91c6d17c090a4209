/**
 * Back-pressure on an import (core/placements/placement-backlog.ts): after a chunk, the import waits while more than a
 * BACKLOG_LIMIT (500) of its organisation's starts are still to be made — debts whose lifecycle has not started and
 * deliveries whose workflow has not — and another organisation's backlog never slows it. Checked as the activity
 * computes it, never by timing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  BACKLOG_LIMIT,
  BACKLOG_PAUSE_MS,
  backlogPauseMs,
  organizationBacklog,
} from '../../core/placements/placement-backlog';
import { testDb } from '../support/resources';
import { insertDeliveries } from '../support/rollup-fixtures';
import { createTestTenant } from '../support/tenants';

describe('placements: an import waits while its organisation’s starts are behind', () => {
  async function pendingStarts(organizationId: string, n: number): Promise<void> {
    await testDb()('lifecycle_pending_starts').insert(
      Array.from({ length: n }, () => ({ debt_id: randomUUID(), organization_id: organizationId })),
    );
  }

  it('counts the organisation’s unstarted lifecycles and deliveries only, up to one past the limit', async () => {
    const mine = (await createTestTenant()).organization.id;
    const other = (await createTestTenant()).organization.id;
    expect(await organizationBacklog(testDb(), mine, 10)).to.equal(0);

    await pendingStarts(mine, 3);
    await insertDeliveries(testDb(), mine, [{ status: 'Pending' }, { status: 'Pending' }, { status: 'Succeeded' }]);
    await pendingStarts(other, 7);
    await insertDeliveries(testDb(), other, [{ status: 'Pending' }]);
    expect(await organizationBacklog(testDb(), mine, 10)).to.equal(5);

    // A started delivery is no longer waiting.
    const [started] = await testDb()('webhook_deliveries')
      .where({ organization_id: mine, status: 'Pending' })
      .limit(1)
      .pluck('id');
    await testDb()('webhook_deliveries').where({ id: started }).update({ workflow_started_at: testDb().fn.now() });
    expect(await organizationBacklog(testDb(), mine, 10)).to.equal(4);

    // Bounded: each count stops one past the limit.
    await pendingStarts(mine, 20);
    expect(await organizationBacklog(testDb(), mine, 10)).to.equal(11 + 1);
  });

  it('pauses the next chunk only while the backlog is over the limit', () => {
    expect(backlogPauseMs(0)).to.equal(0);
    expect(backlogPauseMs(BACKLOG_LIMIT)).to.equal(0);
    expect(backlogPauseMs(BACKLOG_LIMIT + 1)).to.equal(BACKLOG_PAUSE_MS);
  });
});
