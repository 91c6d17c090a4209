/**
 * The fair starter (core/temporal/fair-starter.ts) over real owed rows in PostgreSQL (`lifecycle_pending_starts`,
 * claimed as the lifecycle consumer claims them): the rule that one organisation's backlog does not queue another's
 * start behind it, and that a lease keeps two loops off the same row. The starts are recorded, not sent to Temporal:
 * what is checked is the order the loop makes them in, never how fast.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { claimLifecycleStarts, type DebtStart } from '../../core/lifecycle/lifecycle-consumer';
import { createFairStarter, type StartSource } from '../../core/temporal/fair-starter';
import { silentLogger } from '../support/logger';
import { testDb } from '../support/resources';
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
      await waitFor(async () => rec.started.length === 301, { what: 'every owed start' });
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
});
