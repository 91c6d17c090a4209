/** The knex instance for one database. Built explicitly by each process entry point, never at import time. */
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// NUMERIC comes back as a string (exact); keep it that way and convert with decimal.js where arithmetic is needed.
// int8 (COUNT(*)) fits in a JS number for every count this service produces.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number.parseInt(value, 10));

export type Db = Knex;

/** A transaction: functions whose writes must commit with their caller's take this, not a bare pool. */
export type Trx = Knex.Transaction;

export interface DbOptions {
  pool?: { min: number; max: number };
}

export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: databaseUrl, application_name: 'client-public-api' },
    pool: options.pool ?? { min: 0, max: 10 },
    acquireConnectionTimeout: 10_000,
  });
}

/** A cheap liveness probe used by /healthz. */
export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}
