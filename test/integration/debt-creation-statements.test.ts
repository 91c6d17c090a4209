/**
 * POST /v1/debts in few round trips: with an Idempotency-Key, the claim (lock + saved response) is one
 * statement and the debtor, debt, event and delivery are another. These tests count the statements, hold the event's
 * data to the answer byte for byte, and take the step-by-step path that settles a race on an inline debtor's reference.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { createDebt } from '../../core/debts/debt-creation';
import { useApiSuite } from '../support/api-suite';
import { inlineDebtBody, type Debt } from '../support/debt-api';
import { testDb } from '../support/resources';
import { waitFor } from '../support/wait';

describe('POST /v1/debts round trips', () => {
  const ctx = useApiSuite();

  /**
   * The statements from BEGIN to COMMIT on the connection that ran the transaction while `action` runs: each is one
   * round trip to PostgreSQL. Counted on node-postgres's clients, as some hot statements run beneath knex.
   */
  async function transactionStatements(action: () => Promise<unknown>): Promise<string[]> {
    const sent: { client: pg.Client; sql: string }[] = [];
    const { prototype } = pg.Client;
    const query = Reflect.get(prototype, 'query') as (this: pg.Client, ...args: unknown[]) => unknown;
    const recording = function (this: pg.Client, config: string | { text: string }, ...rest: unknown[]) {
      sent.push({ client: this, sql: typeof config === 'string' ? config : config.text });
      return query.call(this, config, ...rest);
    };
    Reflect.set(prototype, 'query', recording);
    try {
      await action();
    } finally {
      Reflect.set(prototype, 'query', query);
    }
    const isBegin = (sql: string) => /^begin\b/i.test(sql);
    const begin = sent.find((s) => isBegin(s.sql));
    const statements = sent.filter((s) => s.client === begin?.client).map((s) => s.sql);
    const first = statements.findIndex(isBegin);
    return statements.slice(first, statements.findIndex((sql, i) => i > first && /^commit\b/i.test(sql)) + 1);
  }

  it('raises a debt with an inline debtor and an Idempotency-Key in four round trips, one of them the writes', async () => {
    const statements = await transactionStatements(async () => {
      const res = await ctx.api('POST', '/v1/debts', inlineDebtBody(), { 'Idempotency-Key': randomUUID() });
      expect(res.status).to.equal(201);
    });
    // BEGIN + claim, debtor + debt + event + delivery, save the response, COMMIT (was eleven, then five).
    expect(statements, statements.join('\n')).to.have.length(4);
    expect(statements[0]).to.match(/^begin; select \* from claim_idempotency_key\(/);
    expect(statements.filter((sql) => /insert into/i.test(sql))).to.have.length(2);
    expect(statements.some((sql) => /savepoint/i.test(sql))).to.equal(false);
  });

  it('raises a debt without an Idempotency-Key in three round trips', async () => {
    const statements = await transactionStatements(async () => {
      const res = await ctx.api('POST', '/v1/debts', inlineDebtBody());
      expect(res.status).to.equal(201);
    });
    expect(statements, statements.join('\n')).to.have.length(3);
  });

  it('claims keys holding quotes and backslashes, written as SQL literals, and replays them', async () => {
    for (const key of [`it's \\ a key ${randomUUID()}`, `\\'; select 1; -- ${randomUUID()}`]) {
      const body = inlineDebtBody();
      const first = await ctx.api<Debt>('POST', '/v1/debts', body, { 'Idempotency-Key': key });
      const again = await ctx.api<Debt>('POST', '/v1/debts', body, { 'Idempotency-Key': key });
      expect([first.status, again.status]).to.deep.equal([201, 201]);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.text).to.equal(first.text);
      const saved = await testDb()('idempotency_keys').where({ organization_id: ctx.tenant.organization.id, key });
      expect(saved).to.have.length(1);
    }
  });

  it('records debt.created with data byte for byte the answer, for an existing debtor too', async () => {
    const first = await ctx.api<Debt>('POST', '/v1/debts', inlineDebtBody({ clientReference: 'Zoë “ü” 💸' }));
    const again = await ctx.api<Debt>('POST', '/v1/debts', {
      debtorId: first.body.debtorId,
      originalPrincipal: '12.300',
      currency: 'BHD',
      externalAccountId: 'ACCT-\t"quoted"',
    });
    expect(again.status).to.equal(201);
    for (const res of [first, again]) {
      const { rows } = await testDb().raw<{ rows: { data: string }[] }>(
        `select data::text as data from events where organization_id = ? and type = 'debt.created' and data->'debt'->>'id' = ?`,
        [ctx.tenant.organization.id, res.body.id],
      );
      expect(rows.map((row) => row.data)).to.deep.equal([`{"debt":${res.text}}`]);
    }
  });

  it('takes the step-by-step path when the inline reference is committed by another transaction meanwhile', async () => {
    const organizationId = ctx.tenant.organization.id;
    const referenceId = `RACE-${randomUUID().slice(0, 8)}`;
    const holder = await testDb().transaction();
    try {
      const [debtor] = await holder('debtors')
        .insert({
          id: randomUUID(),
          organization_id: organizationId,
          reference_id: referenceId,
          first_name: 'A',
          last_name: 'B',
          email: 'a@example.com',
        })
        .returning('id');
      // The raise waits on the uncommitted reference; its statement's snapshot predates the commit below.
      const raising = testDb().transaction((trx) =>
        createDebt(trx, organizationId, {
          debtorReferenceId: referenceId,
          debtorFirstName: 'C',
          debtorLastName: 'D',
          debtorEmail: 'c@example.com',
          originalPrincipal: 10,
          externalAccountId: 'ACCT-RACE',
        }),
      );
      await waitFor(
        async () => {
          const { rows } = await testDb().raw<{ rows: unknown[] }>(
            `select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.query like '%new_debtor%'`,
          );
          return rows.length > 0;
        },
        { what: 'the raise to wait on the uncommitted debtor' },
      );
      await holder.commit();
      const debt = await raising;
      expect(debt.debtorId).to.equal((debtor as { id: string }).id);
      const events = await testDb()('events').where({ organization_id: organizationId, type: 'debt.created' });
      expect(events).to.have.length(1);
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
  });

  describe('cases beyond the one statement, under an Idempotency-Key (the plain path declines, the handler answers)', () => {
    it('raises by a reference alone, and replays it', async () => {
      const first = await ctx.api<Debt>('POST', '/v1/debts', inlineDebtBody());
      const body = {
        debtorReferenceId: (await debtorOf(first.body)).reference_id,
        originalPrincipal: 10,
        externalAccountId: `A-${randomUUID()}`,
      };
      const key = randomUUID();
      const raised = await ctx.api<Debt>('POST', '/v1/debts', body, { 'Idempotency-Key': key });
      const again = await ctx.api<Debt>('POST', '/v1/debts', body, { 'Idempotency-Key': key });
      expect([raised.status, again.status]).to.deep.equal([201, 201]);
      expect(raised.body.debtorId).to.equal(first.body.debtorId);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.text).to.equal(raised.text);
    });

    it('saves and replays 409 external_account_id_in_use, leaving no inline debtor behind', async () => {
      const open = await ctx.api<Debt>('POST', '/v1/debts', inlineDebtBody());
      const body = inlineDebtBody({ externalAccountId: open.body.externalAccountId });
      const key = randomUUID();
      const refused = await ctx.api('POST', '/v1/debts', body, { 'Idempotency-Key': key });
      const again = await ctx.api('POST', '/v1/debts', body, { 'Idempotency-Key': key });
      expect([refused.status, again.status]).to.deep.equal([409, 409]);
      expect((refused.body as { title: string }).title).to.equal('external_account_id_in_use');
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.text).to.equal(refused.text);
      const debtors = await testDb()('debtors').where({
        organization_id: ctx.tenant.organization.id,
        reference_id: body.debtorReferenceId as string,
      });
      expect(debtors).to.have.length(0);
    });

    it('does not save 400 debtor_not_found: the key then raises the corrected request', async () => {
      const key = randomUUID();
      const unknown = { debtorId: randomUUID(), originalPrincipal: 10, externalAccountId: `A-${randomUUID()}` };
      const refused = await ctx.api('POST', '/v1/debts', unknown, { 'Idempotency-Key': key });
      expect(refused.status).to.equal(400);
      expect((refused.body as { title: string }).title).to.equal('debtor_not_found');
      const raised = await ctx.api('POST', '/v1/debts', inlineDebtBody(), { 'Idempotency-Key': key });
      expect(raised.status).to.equal(201);
      expect(raised.headers.get('idempotent-replayed')).to.equal(null);
    });

    it('settles a race on the inline reference through the handler: one debt on the committed debtor', async () => {
      const organizationId = ctx.tenant.organization.id;
      const body = inlineDebtBody();
      const holder = await testDb().transaction();
      try {
        const [debtor] = await holder('debtors')
          .insert({
            id: randomUUID(),
            organization_id: organizationId,
            reference_id: body.debtorReferenceId as string,
            first_name: 'A',
            last_name: 'B',
            email: 'a@example.com',
          })
          .returning('id');
        const key = randomUUID();
        const raising = ctx.api<Debt>('POST', '/v1/debts', body, { 'Idempotency-Key': key });
        await waitFor(
          async () => {
            const { rows } = await testDb().raw<{ rows: unknown[] }>(
              `select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.query like '%new_debtor%'`,
            );
            return rows.length > 0;
          },
          { what: 'the raise to wait on the uncommitted debtor' },
        );
        await holder.commit();
        const raised = await raising;
        expect(raised.status).to.equal(201);
        expect(raised.body.debtorId).to.equal((debtor as { id: string }).id);
        const events = await testDb()('events').where({ organization_id: organizationId, type: 'debt.created' });
        const raisedEvents = events.filter((e) => (e.data.debt as { id: string }).id === raised.body.id);
        expect(raisedEvents).to.have.length(1);
        const again = await ctx.api<Debt>('POST', '/v1/debts', body, { 'Idempotency-Key': key });
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        expect(again.text).to.equal(raised.text);
      } finally {
        if (!holder.isCompleted()) await holder.rollback();
      }
    });
  });

  async function debtorOf(debt: Debt): Promise<{ reference_id: string }> {
    const row = await testDb()('debtors').where({ id: debt.debtorId }).first('reference_id');
    if (!row) throw new Error(`no debtor ${debt.debtorId}`);
    return row;
  }
});
