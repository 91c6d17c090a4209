/** The knex instance for one database. Built explicitly by each process entry point, never at import time. */
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from './logger';

// NUMERIC comes back as a string (exact); keep it that way and convert with decimal.js where arithmetic is needed.
// int8 (COUNT(*)) fits in a JS number for every count this service produces.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number.parseInt(value, 10));

/**
 * The transaction convention:
 * - `db: Db` — a plain read, or a single statement that is atomic on its own. A pool or a transaction will do.
 * - `trx: Trx` — the function's work must commit or roll back with its caller's other writes (it records an event,
 *   takes a row or advisory lock, or writes in several statements). The compiler refuses a bare pool, so the caller
 *   has to own a transaction; such a function never opens one of its own.
 * - A function that opens its transaction itself (`db.transaction(...)` inside) owns it: it takes `db: Db` and says
 *   so in its doc comment, and must not be handed a caller's transaction expecting one unit of work.
 */
export type Db = Knex;

/** A transaction: what a function whose writes must commit with its caller's takes (see the convention above). */
export type Trx = Knex.Transaction;

export interface DbOptions {
  pool?: { min: number; max: number };
  /** Where knex's own warnings go; without it knex prints them as plain text on stdout (console.log). */
  logger?: Logger;
  /**
   * Lifts the role's `statement_timeout` (migration 20261128110000) for this pool's sessions: for migrations, which
   * build indexes on large tables, and the bench's seeders. Never for a process that serves traffic.
   */
  unboundedStatements?: boolean;
}

export function createDb(databaseUrl: string, options: DbOptions = {}): Db {
  const db = knexFactory({
    client: 'pg',
    connection: {
      connectionString: databaseUrl,
      application_name: 'client-public-api',
      // Every parameterised statement gets a generic plan, made without its values: named statements
      // (core/platform/prepared.ts) plan once per connection, and knex's unnamed ones are planned the same way.
      // A plan made for one tenant's values can be wrong for another: for the largest tenant's events the planner
      // walks the outbox's (txid, seq) index past other tenants' rows instead. The cost is a plan for an average
      // tenant: a per-tenant aggregate may get parallel scans (the console Overview's open-debt count took 37–70 ms
      // so; it now counts one index range per status, with the values in its text — core/staff/console-overview.ts).
      options: '-c plan_cache_mode=force_generic_plan' + (options.unboundedStatements ? ' -c statement_timeout=0' : ''),
    },
    pool: options.pool ?? { min: 0, max: 10 },
    acquireConnectionTimeout: 10_000,
    ...(options.logger && { log: knexLog(options.logger) }),
  });
  poolByConfig.set((db.client as Knex.Client).config, db);
  return db;
}

/** knex's warnings and errors as lines of the process's JSON log, instead of plain text on stdout among them. */
function knexLog(logger: Logger): NonNullable<Knex.Config['log']> {
  const log = logger.child({ component: 'knex' });
  return {
    warn: (message: unknown) => log.warn(String(message)),
    error: (message: unknown) => log.error(String(message)),
    deprecate: (method: string, alternative: string) => log.warn(`${method} is deprecated: ${alternative}`),
    debug: (message: unknown) => log.debug(String(message)),
  };
}

/**
 * A transaction's client shares its pool's `config` object (knex's makeTxClient copies the reference), so the config
 * leads from a transaction back to its pool: what an after-commit step that must run outside the transaction needs.
 */
const poolByConfig = new WeakMap<Knex.Config, Db>();

/** The pool a transaction was opened on (undefined for a Db not made by createDb). */
export function poolOf(trx: Trx): Db | undefined {
  return poolByConfig.get((trx.client as Knex.Client).config);
}

/** False once the pool is being destroyed (its process shutting down): it hands out no more connections. */
export function isPoolOpen(db: Db): boolean {
  const pool = (db.client as { pool?: { destroyed?: boolean } }).pool;
  return pool !== undefined && pool.destroyed !== true;
}

/** A cheap liveness probe used by /healthz. */
export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}
