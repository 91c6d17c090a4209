/**
 * A transaction driven beneath knex, on one connection of knex's pool, for a hot write of a few fixed statements
 * (`POST /v1/debts`). A knex transaction costs the API about 190 µs of CPU on top of its statements
 * (measured: BEGIN, one named select and COMMIT through `db.transaction`, 260 µs; the same on the driver, 70 µs):
 * the transactor object, its client and their event wiring are built anew for each one, and BEGIN and COMMIT go
 * through knex's runner. Here the transaction is the connection itself: `begin` opens it with the caller's first
 * statements in the same simple query (one round trip), statements run as named prepared statements
 * (core/platform/prepared.ts), and `commit` / `rollback` end it and give the connection back.
 *
 * Only for fixed statements: anything that needs knex's builder takes a knex transaction (`db.transaction`) instead.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Db } from './db';
import { nativeText, statementName } from './prepared';

/** What a function writing through a plain transaction gets. */
export interface PlainTransaction {
  /** Runs a fixed statement written with knex's `?` placeholders (as `trx.raw` takes them), named. */
  query<Row>(sql: string, bindings: readonly unknown[]): Promise<Row[]>;
  /** The pool whose connection it runs on. */
  readonly pool: Db;
  /** The API request this transaction works for (its `X-Request-Id`), or null: events carry it (request-cause.ts). */
  readonly requestId: string | null;
  /** Runs `task` once the transaction has committed; never if it rolls back. */
  onCommit(task: () => void): void;
}

export class OpenPlainTransaction implements PlainTransaction {
  private done = false;
  private readonly committed: (() => void)[] = [];

  private readonly client: Knex.Client;

  private constructor(
    readonly pool: Db,
    private readonly connection: pg.ClientBase,
    readonly requestId: string | null,
  ) {
    this.client = pool.client as Knex.Client;
  }

  /**
   * Takes a connection and sends `begin` followed by `statements` (`;`-separated, simple protocol: no parameters, so
   * any value in them must be a literal the caller has made safe) in one round trip; returns each statement's result
   * (none when `statements` is empty), their rows typed `Row` by the caller, who wrote the statements.
   * If they fail, the transaction is rolled back and the error thrown.
   */
  static async begin<Row = pg.QueryResultRow>(
    db: Db,
    requestId: string | null,
    statements: string,
  ): Promise<{ tx: OpenPlainTransaction; results: { rows: Row[] }[] }> {
    const connection = (await (db.client as Knex.Client).acquireConnection()) as pg.ClientBase;
    const tx = new OpenPlainTransaction(db, connection, requestId);
    try {
      if (statements === '') {
        await connection.query('begin');
        return { tx, results: [] };
      }
      // A multi-statement simple query answers one result per statement, which pg's types do not say.
      const sent = (await connection.query(`begin; ${statements}`)) as unknown as { rows: Row[] }[];
      return { tx, results: sent.slice(1) };
    } catch (err) {
      await tx.rollback();
      throw err;
    }
  }

  async query<Row>(sql: string, bindings: readonly unknown[]): Promise<Row[]> {
    if (this.done) throw new Error('query on a finished plain transaction');
    const text = nativeText(this.pool, sql);
    const result = await this.connection.query<Row & pg.QueryResultRow>({
      name: statementName(text),
      text,
      values: bindings as unknown[],
    });
    return result.rows;
  }

  onCommit(task: () => void): void {
    this.committed.push(task);
  }

  /** Commits and gives the connection back; then runs the `onCommit` tasks. */
  async commit(): Promise<void> {
    if (this.done) throw new Error('commit of a finished plain transaction');
    this.done = true;
    try {
      await this.connection.query('commit');
    } catch (err) {
      this.release(true);
      throw err;
    }
    this.release(false);
    for (const task of this.committed) task();
  }

  /** Rolls back (if still open) and gives the connection back; a connection that cannot roll back is discarded. */
  async rollback(): Promise<void> {
    if (this.done) return;
    this.done = true;
    let broken = false;
    try {
      await this.connection.query('rollback');
    } catch {
      broken = true; // the pool must not hand out a connection in an unknown state
    }
    this.release(broken);
  }

  private release(discard: boolean): void {
    // knex's pool validates a connection before handing it out and drops it when this is set (as on a socket error).
    if (discard) (this.connection as pg.ClientBase & { __knex__disposed?: unknown }).__knex__disposed ??= 'rolled';
    void this.client.releaseConnection(this.connection);
  }
}
