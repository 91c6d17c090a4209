import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';
import type { Debt as CreatedDebt } from '../../core/debts/debts';
import { toEventEnvelope } from '../../core/events/outbox';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, inlineDebtBody } from '../support/debt-api';
import { testDb } from '../support/resources';

type Debt = Record<string, unknown> & { id: string };

describe('Outbox: debt.created and debt.updated are written with the change, atomically', () => {
  const ctx = useApiSuite();

  async function events(organizationId = ctx.tenant.organization.id) {
    const rows = await testDb()('events').where({ organization_id: organizationId }).orderBy('id');
    return rows.map(toEventEnvelope);
  }

  it('writes debt.created with the spec §6 envelope and the debt exactly as POST returned it', async () => {
    const res = await ctx.api<Debt>('POST', '/v1/debts', inlineDebtBody({ originalPrincipal: '0.3' }));
    expect(res.status).to.equal(201);
    const [event, ...rest] = await events();
    expect(rest).to.deep.equal([]);
    expect(Object.keys(event!).sort()).to.deep.equal(['createdAt', 'data', 'id', 'type']);
    expect(event!.id).to.match(/^evt_[0-9a-f]{32}$/);
    expect(event!.type).to.equal('debt.created');
    expect(event!.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(event!.data).to.deep.equal({ debt: res.body });
    // Byte for byte as the API answered: same fields, same order, money exact.
    expect(JSON.stringify(event!.data.debt)).to.equal(res.text);
    expect(res.text).to.contain('"originalPrincipal":0.3,');
  });

  it('writes debt.updated for each PATCH that changes something, and nothing for one that does not', async () => {
    const debt = (await ctx.api<Debt>('POST', '/v1/debts', inlineDebtBody())).body;
    const changed = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { clientReference: 'REF-1' });
    const unchanged = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { clientReference: 'REF-1' });
    expect(unchanged.status).to.equal(200);
    const refused = await ctx.api('PATCH', `/v1/debts/${debt.id}`, { originalPrincipal: 0 });
    expectProblem(refused, 400, 'invalid_principal');
    const closed = await ctx.api<Debt>('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' });
    const list = await events();
    expect(list.map((e) => e.type)).to.deep.equal(['debt.created', 'debt.updated', 'debt.updated']);
    expect(list[1]!.data).to.deep.equal({ debt: changed.body, previousAttributes: { clientReference: null } });
    expect(list[2]!.data).to.deep.equal({ debt: closed.body, previousAttributes: { status: 'PendingAssignment' } });
    expect(new Set(list.map((e) => e.id)).size).to.equal(3);
  });

  it('leaves neither debt, debtor nor event when the transaction fails after the debt insert', async () => {
    const input = inlineDebtBody();
    let created: CreatedDebt | undefined;
    const failure = await testDb()
      .transaction(async (trx) => {
        created = await createDebt(trx, ctx.tenant.organization.id, input);
        // The debt and its event are in this transaction, visible to it...
        expect(await trx('debts').where({ id: created.id }).first()).to.not.equal(undefined);
        expect(await trx('events').where({ organization_id: ctx.tenant.organization.id })).to.have.length(1);
        throw new Error('forced failure after the debt insert');
      })
      .catch((err: Error) => err);
    expect(failure).to.be.instanceOf(Error).with.property('message', 'forced failure after the debt insert');
    expect(created).to.not.equal(undefined);
    // ...and gone together once it rolls back.
    expect(await testDb()('debts').where({ id: created!.id }).first()).to.equal(undefined);
    expect(await testDb()('debtors').where({ organization_id: ctx.tenant.organization.id })).to.deep.equal([]);
    expect(await events()).to.deep.equal([]);
  });

  it('answers 500 and keeps no debt when the event insert itself fails, and a retry then raises it once', async () => {
    const orgId = ctx.tenant.organization.id;
    const fn = `fail_events_${randomUUID().replace(/-/g, '')}`;
    // Only this test's organisation is affected, so tests running alongside are not.
    await testDb().raw(`create function ${fn}() returns trigger language plpgsql as $$
      begin raise exception 'forced event failure'; end $$`);
    await testDb().raw(
      `create trigger ${fn} before insert on events for each row
       when (new.organization_id = '${orgId}'::uuid) execute function ${fn}()`,
    );
    const body = inlineDebtBody();
    const key = `outbox-${randomUUID()}`;
    try {
      const res = await ctx.api('POST', '/v1/debts', body, { 'idempotency-key': key });
      expectProblem(res, 500, 'internal_error');
      expect(await testDb()('debts').where({ organization_id: orgId })).to.deep.equal([]);
      expect(await testDb()('debtors').where({ organization_id: orgId })).to.deep.equal([]);
    } finally {
      await testDb().raw(`drop trigger if exists ${fn} on events`);
      await testDb().raw(`drop function if exists ${fn}()`);
    }
    const retry = await ctx.api<Debt>('POST', '/v1/debts', body, { 'idempotency-key': key });
    expect(retry.status, retry.text).to.equal(201);
    expect(await testDb()('debts').where({ organization_id: orgId })).to.have.length(1);
    expect((await events()).map((e) => [e.type, (e.data.debt as Debt).id])).to.deep.equal([
      ['debt.created', retry.body.id],
    ]);
  });
});
