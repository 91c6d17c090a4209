/**
 * The fair starter (core/temporal/fair-starter.ts) over real owed rows in PostgreSQL (`lifecycle_pending_starts`,
 * claimed as the lifecycle consumer claims them): the rule that one organisation's backlog does not queue another's
 * start behind it, and that a lease keeps two loops off the same row. The starts are recorded, not sent to Temporal:
 * what is checked is the order the loop makes them in, never how fast. The deliveries' claim adds admission by progress:
 * no more of an organisation's deliveries between claim and first attempt than its bound.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { claimLifecycleStarts, type DebtStart } from '../../core/lifecycle/lifecycle-consumer';
import {
  claimOwedDeliveries,
  markWorkflowsStarted,
  releaseDeliveryClaims,
  type DeliveryRef,
} from '../../core/webhooks/dispatch';
import { createFairStarter, type StartSource } from '../../core/temporal/fair-starter';
import { silentLogger } from '../support/logger';
import { testDb } from '../support/resources';
import { insertDeliveries } from '../support/rollup-fixtures';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

interface PendingStart {
  claimed_until: Date | null;
}

describe('the fair starter: owed workflow starts in turns across organisations', () => {
  async function owe(organizationId: string, n: number): Promise<void> {
    await testDb()('lifecycle_pending_starts').insert(
      Array.from({ length: n }, () => ({ debt_id: randomUUID(), organization_id: organizationId })),
    );
  }

  /** A source over the real table, limited to these organisations (other tests' rows are given straight back). */
  function recordingSource(organizations: string[]) {
    const started: DebtStart[] = [];
    let open: () => void = () => undefined;
    let gate = Promise.resolve();
    const source: StartSource<DebtStart> = {
      async claim(perOrganization, skip, leaseMs) {
        const claimed = await claimLifecycleStarts(testDb(), 'production', perOrganization, skip, leaseMs);
        const others = claimed.filter((d) => !organizations.includes(d.organizationId));
        if (others.length > 0) await source.release(others, 0);
        return claimed.filter((d) => organizations.includes(d.organizationId));
      },
      async start(debt) {
        await gate;
        started.push(debt);
      },
      async recordStarted(debts) {
        await testDb()('lifecycle_pending_starts')
          .whereIn(
            'debt_id',
            debts.map((d) => d.debtId),
          )
          .delete();
      },
      async release(debts) {
        await testDb()('lifecycle_pending_starts')
          .whereIn(
            'debt_id',
            debts.map((d) => d.debtId),
          )
          .update({ claimed_until: null });
      },
    };
    return {
      source,
      started,
      /** Holds every start until `release`. */
      hold() {
        gate = new Promise((resolve) => (open = resolve));
      },
      release: () => open(),
    };
  }

  it('starts a newcomer’s one debt within a turn of a tenant already 300 starts deep', async () => {
    const big = (await createTestTenant()).organization.id;
    const small = (await createTestTenant()).organization.id;
    await owe(big, 300);
    const rec = recordingSource([big, small]);
    const starter = createFairStarter(rec.source, {
      concurrency: 2,
      perOrganization: 50,
      leaseMs: 30_000,
      logger: silentLogger('test'),
    });
    try {
      starter.kick();
      await waitFor(async () => rec.started.length >= 20, { what: 'the big tenant’s first starts' });
      rec.hold(); // the lanes stop at their next start; the newcomer's debt is owed now
      await owe(small, 1);
      starter.kick();
      await waitFor(
        async () =>
          (await testDb()('lifecycle_pending_starts').where({ organization_id: small }).first<PendingStart>())
            ?.claimed_until != null,
        { what: 'the newcomer’s start to be claimed' },
      );
      const before = rec.started.length;
      rec.release();
      await waitFor(async () => rec.started.some((d) => d.organizationId === small), {
        what: 'the newcomer’s start',
      });
      const position = rec.started.findIndex((d) => d.organizationId === small);
      // At most the two held lanes' starts and one more of the big tenant's go before it: its turn comes next.
      expect(position - before, 'big-tenant starts made before the newcomer’s').to.be.at.most(3);
      // As the relay kicks after every pass: the big tenant's next starts are claimed as its earlier ones progress.
      await waitFor(
        async () => {
          starter.kick();
          return rec.started.length === 301;
        },
        { what: 'every owed start' },
      );
      await waitFor(
        async () => (await testDb()('lifecycle_pending_starts').where({ organization_id: big })).length === 0,
        {
          what: 'every start recorded',
        },
      );
      expect(new Set(rec.started.map((d) => d.debtId)).size, 'each debt started once').to.equal(301);
    } finally {
      rec.release();
      await starter.stop();
    }
  });

  it('claims up to the limit per organisation, leaves out the organisations asked, and never a row another holds', async () => {
    const a = (await createTestTenant()).organization.id;
    const b = (await createTestTenant()).organization.id;
    await owe(a, 30);
    await owe(b, 5);
    const mine = (claimed: DebtStart[]) => claimed.filter((d) => [a, b].includes(d.organizationId));
    const count = (claimed: DebtStart[], org: string) => claimed.filter((d) => d.organizationId === org).length;

    const first = mine(await claimLifecycleStarts(testDb(), 'production', 10, [b], 30_000));
    expect(count(first, a)).to.equal(10);
    expect(count(first, b), 'b was left out').to.equal(0);

    // Two loops at once: what one claims the other cannot.
    const [x, y] = await Promise.all([
      claimLifecycleStarts(testDb(), 'production', 10, [], 30_000),
      claimLifecycleStarts(testDb(), 'production', 10, [], 30_000),
    ]);
    // The loser of a race for the same rows gets none of them; it claims the next ones at its next kick.
    const rest = mine(await claimLifecycleStarts(testDb(), 'production', 50, [], 30_000));
    const all = [...first, ...mine(x), ...mine(y), ...rest];
    const ids = all.map((d) => d.debtId);
    expect(new Set(ids).size, 'no row claimed twice').to.equal(ids.length);
    expect(count(all, a), 'every owed row of a claimed once').to.equal(30);
    expect(count(all, b)).to.equal(5);

    // A lease that ran out is claimable again.
    await testDb()('lifecycle_pending_starts')
      .where({ organization_id: b })
      .update({ claimed_until: testDb().raw(`now() - interval '1 second'`) });
    expect(count(mine(await claimLifecycleStarts(testDb(), 'production', 10, [], 30_000)), b)).to.equal(5);
  });

  it('claims an organisation’s owed work that is not bulk before its older bulk work (a placement’s)', async () => {
    const org = (await createTestTenant()).organization.id;
    const oldFirst = (i: number) => new Date(Date.now() - 60_000 + i * 1000);
    // A placement's thousands, owed for a minute (as bulk work), then one debt raised through the API.
    const bulkDebts = Array.from({ length: 20 }, (_, i) => ({ id: randomUUID(), at: oldFirst(i) }));
    const apiDebt = randomUUID();
    await testDb()('lifecycle_pending_starts').insert([
      ...bulkDebts.map((d) => ({ debt_id: d.id, organization_id: org, bulk: true, created_at: d.at })),
      { debt_id: apiDebt, organization_id: org, bulk: false },
    ]);
    const bulkDeliveries = await insertDeliveries(
      testDb(),
      org,
      Array.from({ length: 20 }, (_, i) => ({ status: 'Pending' as const, agoMs: 60_000 - i * 1000 })),
    );
    await testDb()('webhook_deliveries').whereIn('id', bulkDeliveries).update({ bulk: true });
    const [apiDelivery] = await insertDeliveries(testDb(), org, [{ status: 'Pending' }]);
    const mine = <T extends { organizationId: string }>(claimed: T[]) =>
      claimed.filter((d) => d.organizationId === org);

    const starts = mine(await claimLifecycleStarts(testDb(), 'production', 3, [], 30_000));
    expect(starts.map((d) => d.debtId)).to.deep.equal([apiDebt, bulkDebts[0]!.id, bulkDebts[1]!.id]);
    const deliveries = mine(await claimOwedDeliveries(testDb(), 'production', 3, [], 30_000, 32));
    expect(deliveries.map((d) => d.deliveryId)).to.deep.equal([apiDelivery, bulkDeliveries[0], bulkDeliveries[1]]);
    // Then the bulk work, oldest first, as before.
    const next = mine(await claimLifecycleStarts(testDb(), 'production', 2, [], 30_000));
    expect(next.map((d) => d.debtId)).to.deep.equal([bulkDebts[2]!.id, bulkDebts[3]!.id]);
  });

  it('claims an organisation’s deliveries only while fewer than its bound are between claim and first attempt', async () => {
    const a = (await createTestTenant()).organization.id;
    const b = (await createTestTenant()).organization.id;
    const owed = (org: string, n: number) =>
      insertDeliveries(
        testDb(),
        org,
        Array.from({ length: n }, () => ({ status: 'Pending' as const })),
      );
    const startedAgo = (ids: string[], seconds: number, attempts = 0) =>
      testDb()('webhook_deliveries')
        .whereIn('id', ids)
        .update({
          workflow_started_at: testDb().raw(`now() - ? * interval '1 second'`, [seconds]),
          attempt_count: attempts,
        });
    await owed(a, 10);
    const running = await owed(a, 3);
    await startedAgo(running, 5); // started, not tried yet: in flight
    await startedAgo(await owed(a, 2), 5, 1); // tried once, waiting for a retry: no longer in flight
    await startedAgo(await owed(a, 2), 120); // started two minutes ago and never tried (a lost run): not counted
    await owed(b, 4);
    /** One organisation's claims; the rest (this and other tests' organisations) are given straight back. */
    const claim = async (org: string) => {
      const claimed = await claimOwedDeliveries(testDb(), 'production', 50, [], 30_000, 5);
      await releaseDeliveryClaims(
        testDb(),
        claimed.filter((d) => d.organizationId !== org),
        0,
      );
      return claimed.filter((d) => d.organizationId === org);
    };

    expect(await claim(b), 'nothing of b in flight: every owed one under the bound').to.have.length(4);
    const first = await claim(a);
    expect(first, 'a has 3 in flight: 2 more to its bound of 5').to.have.length(2);
    expect(await claim(a), 'the 2 just claimed are in flight too').to.have.length(0);

    await markWorkflowsStarted(testDb(), first); // started: still in flight until tried
    expect(await claim(a)).to.have.length(0);
    await startedAgo(running.slice(0, 1), 5, 1); // one first attempt made
    const next: DeliveryRef[] = await claim(a);
    expect(next, 'one tried, one more claimed').to.have.length(1);
    expect(first.map((d) => d.deliveryId)).not.to.include(next[0]!.deliveryId);
  });

  it('claims an organisation’s lifecycle starts only while fewer than its bound are between claim and first task', async () => {
    const org = (await createTestTenant()).organization.id;
    const rows = async (n: number, startedSecondsAgo?: number) => {
      const ids = Array.from({ length: n }, () => randomUUID());
      await testDb()('lifecycle_pending_starts').insert(
        ids.map((debt_id) => ({
          debt_id,
          organization_id: org,
          started_at:
            startedSecondsAgo === undefined
              ? null
              : testDb().raw(`now() - ? * interval '1 second'`, [startedSecondsAgo]),
        })),
      );
      return ids;
    };
    await rows(10);
    const running = await rows(3, 5); // started, first task not run yet: in flight
    const lost = await rows(2, 120); // started two minutes ago and never ran: not counted
    const claim = async () => {
      const claimed = await claimLifecycleStarts(testDb(), 'production', 50, [], 30_000, 5);
      const others = claimed.filter((d) => d.organizationId !== org).map((d) => d.debtId);
      await testDb()('lifecycle_pending_starts').whereIn('debt_id', others).update({ claimed_until: null });
      return claimed.filter((d) => d.organizationId === org).map((d) => d.debtId);
    };

    const first = await claim();
    expect(first, '3 in flight: 2 more to the bound of 5').to.have.length(2);
    expect(first, 'a started row is never owed again').to.not.include.members([...running, ...lost]);
    expect(await claim(), 'the 2 just claimed are in flight too').to.have.length(0);
    await testDb()('lifecycle_pending_starts').where({ debt_id: running[0] }).delete(); // its first task ran
    expect(await claim(), 'one first task done, one more claimed').to.have.length(1);
  });
});
