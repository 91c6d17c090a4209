/**
 * The hot paths' queries run as named prepared statements (core/platform/prepared.ts): parsed and planned once per
 * connection, not once per request. Checked on PostgreSQL's own list of a connection's prepared statements.
 */
import { expect } from 'chai';
import { listEvents } from '../../core/events/event-list';
import { createDb, type Trx } from '../../core/platform/db';
import { prepared, queryNamedRaw, statementName } from '../../core/platform/prepared';
import { testEnv } from '../support/env';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { raiseEvent } from '../support/webhooks';

/** The names of the prepared statements of the connection `trx` holds. */
async function preparedOn(trx: Trx): Promise<string[]> {
  const { rows } = await trx.raw<{ rows: { name: string }[] }>('select name from pg_prepared_statements');
  return rows.map((r) => r.name);
}

describe('prepared statements', () => {
  it('names a query after its text: one text, one name; another text, another name', () => {
    expect(statementName('select 1')).to.equal(statementName('select 1'));
    expect(statementName('select 1')).to.not.equal(statementName('select 2'));
    expect(statementName('select 1')).to.match(/^q_[0-9a-f]{24}$/);
  });

  it('runs a named query as a prepared statement of its connection, with its values still bound', async () => {
    await testDb().transaction(async (trx) => {
      const query = () => trx.raw<{ rows: { n: number }[] }>('select ?::int + 1 as n', [41]);
      const name = statementName(query().toSQL().toNative().sql);
      expect(await preparedOn(trx)).to.not.include(name);
      const first = await prepared(query());
      const again = await prepared(trx.raw<{ rows: { n: number }[] }>('select ?::int + 1 as n', [1]));
      expect(first.rows[0]!.n).to.equal(42);
      expect(again.rows[0]!.n).to.equal(2);
      expect((await preparedOn(trx)).filter((n) => n === name)).to.have.length(1);
    });
  });

  it('plans a prepared statement once per connection, for every tenant alike', async () => {
    const { rows } = await testDb().raw<{ rows: { plan_cache_mode: string }[] }>('show plan_cache_mode');
    expect(rows[0]!.plan_cache_mode).to.equal('force_generic_plan');
  });

  it('reads a list page through a prepared statement, on a connection of the pool', async () => {
    const tenant = await createTestTenant();
    const eventId = await raiseEvent(tenant.organization.id);
    // A pool of one connection of its own: a connection of the shared pool may have prepared the page's statement in
    // another test, and with one connection the list and the check below share it.
    const db = createDb(testEnv.databaseUrl, { pool: { min: 1, max: 1 } });
    const preparedOnPool = async () =>
      (await db.raw<{ rows: { name: string }[] }>('select name from pg_prepared_statements')).rows.map((r) => r.name);
    try {
      expect(await preparedOnPool()).to.deep.equal([]);
      const page = await listEvents(db, tenant.organization.id, undefined, { limit: 10 });
      expect(page.toText()).to.include(eventId);
      const names = await preparedOnPool();
      expect(names).to.have.length(1);
      await listEvents(db, tenant.organization.id, 'debt.created', { limit: 10 });
      await listEvents(db, tenant.organization.id, undefined, { limit: 5 });
      // Another filter is another text; another limit is the same statement with another value.
      expect(await preparedOnPool())
        .to.have.length(2)
        .and.include(names[0]);
    } finally {
      await db.destroy();
    }
  });

  it('runs a named query inside a transaction on the transaction’s own connection, after its earlier statements', async () => {
    let finished: Trx | undefined;
    await testDb().transaction(async (trx) => {
      finished = trx;
      const backend = (await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await trx.raw(`set local application_name = 'prepared-in-transaction'`);
      const sql = "select pg_backend_pid() as pid, current_setting('application_name') as name, ?::int as n";
      const [row] = await queryNamedRaw<{ pid: number; name: string; n: number }>(trx, sql, [7]);
      expect(row).to.deep.equal({ pid: backend, name: 'prepared-in-transaction', n: 7 });
      expect(await preparedOn(trx)).to.include(statementName(trx.raw(sql, [7]).toSQL().toNative().sql));
    });
    // Once committed, its connection is back in the pool, perhaps another request's: refused, as knex refuses.
    const refused = await queryNamedRaw(finished!, 'select 1', []).catch((err: Error) => err);
    expect(refused)
      .to.be.instanceOf(Error)
      .with.property('message')
      .that.matches(/finished transaction/);
  });
});
