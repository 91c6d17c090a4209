/**
 * `metadata` on debts and debtors (docs/debts.md): string keys and values with Stripe's limits,
 * returned everywhere (the record, the lists PostgreSQL writes, the events), merged by PATCH key by key, and
 * filterable by one pair with `metadata[key]=value`.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, inlineDebtBody, raiseDebt, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';
import type { EventType } from '../../core/events/outbox';
import { createTestTenant } from '../support/tenants';

type Page<T> = { data: T[]; nextCursor: string | null };
type WithMetadata = Debt & { metadata: Record<string, string> };

describe('metadata on debts and debtors', function () {
  this.timeout(30_000);
  const ctx = useApiSuite();

  const eventsOf = async (type: EventType): Promise<{ data: { debt: WithMetadata } }[]> =>
    (await testDb()('events')
      .where({ organization_id: ctx.tenant.organization.id, type })
      .orderBy('seq')) as unknown as { data: { debt: WithMetadata } }[];

  it('keeps what a debt is raised with, the same in the record, the list and debt.created', async () => {
    // Integer-like keys come first in a JavaScript object: the list PostgreSQL writes must agree byte for byte.
    const metadata = { crmId: 'C-1', '10': 'ten', '2': 'two', ünï: 'cødé "quoted" \\ ✓' };
    const debt = (await raiseDebt(ctx.api, { metadata })) as WithMetadata;
    expect(debt.metadata).to.deep.equal(metadata);
    const read = await ctx.api('GET', `/v1/debts/${debt.id}`);
    const listed = await ctx.api<Page<WithMetadata>>('GET', '/v1/debts');
    expect(JSON.stringify(listed.body.data[0])).to.equal(read.text);
    const [created] = await eventsOf('debt.created');
    expect(created!.data.debt.metadata).to.deep.equal(metadata);
    // A debt raised without metadata has an empty object, never null.
    expect((await raiseDebt(ctx.api)).metadata).to.deep.equal({});
  });

  it('refuses metadata over the limits in plain words naming the field', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    const cases: [unknown, string][] = [
      [tooMany, 'must name at most 50 fields'],
      [{ ['k'.repeat(41)]: 'v' }, `has a key "${'k'.repeat(41)}" that must be at most 40 characters long`],
      [{ '': 'v' }, 'has a key "" that must not be empty'],
      [{ note: 'v'.repeat(501) }, 'must be at most 500 characters long'],
      [{ count: 3 }, 'must be a string'],
      [['a'], 'must be a JSON object'],
    ];
    for (const [metadata, message] of cases) {
      const res = await ctx.api('POST', '/v1/debts', inlineDebtBody({ metadata }));
      const problem = expectProblem(res, 400, 'invalid_request') as { errors: { path: string; message: string }[] };
      expect(
        problem.errors.map((e) => e.message),
        JSON.stringify(metadata).slice(0, 80),
      ).to.include(message);
      expect(
        problem.errors.every((e) => e.path.startsWith('body.metadata')),
        res.text,
      ).to.equal(true);
      expect(res.text).not.to.match(/must NOT|propertyName/);
    }
    expect(await testDb()('debts').where({ organization_id: ctx.tenant.organization.id })).to.have.length(0);
  });

  it('merges a PATCH key by key, removes keys sent as "" or null, and clears all with null', async () => {
    const debt = (await raiseDebt(ctx.api, { metadata: { a: '1', b: '2', c: '3' } })) as WithMetadata;
    const merged = await ctx.api<WithMetadata>('PATCH', `/v1/debts/${debt.id}`, {
      metadata: { a: 'one', b: '', c: null, d: '4' },
    });
    expect(merged.status, merged.text).to.equal(200);
    expect(merged.body.metadata).to.deep.equal({ a: 'one', d: '4' });

    // Keys sent with their own values change nothing: no new updatedAt, no event.
    const updates = (await eventsOf('debt.updated')).length;
    const same = await ctx.api<WithMetadata>('PATCH', `/v1/debts/${debt.id}`, { metadata: { a: 'one', gone: null } });
    expect(same.body.updatedAt).to.equal(merged.body.updatedAt);
    expect(await eventsOf('debt.updated')).to.have.length(updates);

    // Growing past 50 keys in all is refused, and leaves the debt as it was.
    const fifty = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { metadata: fifty });
    expect(expectProblem(tooMany, 400, 'invalid_request').errors).to.deep.equal([
      { path: 'body.metadata', message: 'has more than 50 keys' },
    ]);
    const cleared = await ctx.api<WithMetadata>('PATCH', `/v1/debts/${debt.id}`, { metadata: null });
    expect(cleared.body.metadata).to.deep.equal({});
    const [, lastUpdate] = (await eventsOf('debt.updated')).slice(-2);
    expect(lastUpdate!.data.debt.metadata).to.deep.equal({});
  });

  it('writes metadata sent with a recall in the recall’s own change, one debt.updated', async () => {
    const debt = (await raiseDebt(ctx.api, { metadata: { stage: 'collecting' } })) as WithMetadata;
    const closed = await ctx.api<WithMetadata>('PATCH', `/v1/debts/${debt.id}`, {
      status: 'Closed',
      metadata: { stage: 'recalled', reason: 'paid the creditor directly' },
    });
    expect(closed.status, closed.text).to.equal(200);
    expect(closed.body).to.include({ status: 'Closed' });
    expect(closed.body.metadata).to.deep.equal({ stage: 'recalled', reason: 'paid the creditor directly' });
    const updates = await eventsOf('debt.updated');
    expect(updates).to.have.length(1);
    expect(updates[0]!.data.debt.metadata).to.deep.equal(closed.body.metadata);
  });

  it('filters debts by one metadata pair, page by page, within the organisation', async () => {
    const crmId = `C-${randomUUID().slice(0, 8)}`;
    const matching = [];
    for (let i = 0; i < 3; i++) matching.push(await raiseDebt(ctx.api, { metadata: { crmId, n: String(i) } }));
    await raiseDebt(ctx.api, { metadata: { crmId: 'other' } });
    await raiseDebt(ctx.api, { metadata: { other: crmId } });
    await raiseDebt(callerFor(ctx.server.baseUrl, await createTestTenant()), { metadata: { crmId } });

    const seen: string[] = [];
    let path = `/v1/debts?limit=2&metadata[crmId]=${crmId}`;
    for (;;) {
      const page = await ctx.api<Page<WithMetadata>>('GET', path);
      expect(page.status, page.text).to.equal(200);
      seen.push(...page.body.data.map((d) => d.id));
      if (!page.body.nextCursor) break;
      path = `/v1/debts?limit=2&metadata[crmId]=${crmId}&cursor=${encodeURIComponent(page.body.nextCursor)}`;
    }
    expect(seen).to.deep.equal(matching.map((d) => d.id).reverse());
    // The bracket form is percent-encoded by most clients.
    const encoded = await ctx.api<Page<WithMetadata>>('GET', `/v1/debts?metadata%5BcrmId%5D=${crmId}`);
    expect(encoded.body.data).to.have.length(3);

    const twoPairs = await ctx.api('GET', `/v1/debts?metadata[crmId]=${crmId}&metadata[n]=1`);
    expectProblem(twoPairs, 400, 'invalid_request');
    expectProblem(await ctx.api('GET', '/v1/debts?other[crmId]=x'), 400, 'invalid_request');
  });

  it('gives debtors metadata too: set, merged, filtered', async () => {
    const created = await ctx.api<WithMetadata>('POST', '/v1/debtors', {
      referenceId: `DBR-${randomUUID().slice(0, 8)}`,
      firstName: 'Ava',
      lastName: 'Harris',
      email: 'ava@example.com',
      metadata: { segment: 'retail', region: 'NSW' },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.metadata).to.deep.equal({ segment: 'retail', region: 'NSW' });
    const patched = await ctx.api<WithMetadata>('PATCH', `/v1/debtors/${created.body.id}`, {
      metadata: { region: null, tier: 'gold' },
    });
    expect(patched.body.metadata).to.deep.equal({ segment: 'retail', tier: 'gold' });
    await ctx.api('POST', '/v1/debtors', {
      referenceId: `DBR-${randomUUID().slice(0, 8)}`,
      firstName: 'Bo',
      lastName: 'Li',
      email: 'bo@example.com',
    });
    const filtered = await ctx.api<Page<WithMetadata>>('GET', '/v1/debtors?metadata[tier]=gold');
    expect(filtered.body.data.map((d) => d.id)).to.deep.equal([created.body.id]);
    expect((await ctx.api<WithMetadata>('GET', `/v1/debtors/${created.body.id}`)).body.metadata).to.deep.equal(
      patched.body.metadata,
    );
  });
});
