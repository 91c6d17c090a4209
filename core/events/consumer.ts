/**
 * What an outbox consumer is (DECISIONS.md §4, ARCHITECTURE.md): a named reader of the outbox with its own cursor, so
 * each consumer takes each event once, independently of the others. The relay (relay.ts) drives every registered
 * consumer; adding one needs no change to the relay.
 */
import type { Trx } from '../platform/db';

/** An event as the relay hands it to consumers: ids and type only; a consumer loads whatever else it needs. */
export interface OutboxEvent {
  id: string;
  organizationId: string;
  type: string;
  /** The event's outbox position: the writing transaction's id (xid8, as text) and the event's sequence number. */
  txid: string;
  seq: number;
}

/** Work to run once the batch's transaction has committed (e.g. start workflows for rows it wrote). */
export type AfterCommit = () => Promise<void>;

export interface OutboxConsumer {
  /** Stable name: it keys the consumer's cursor in `outbox_cursors`. Renaming it starts the consumer afresh. */
  readonly name: string;
  /**
   * Takes a batch, in outbox order, inside the transaction that moves this consumer's cursor past it: what it writes
   * with `trx` commits together with the cursor, or not at all. Anything it does outside the database must be
   * idempotent, because a batch whose commit fails is handed over again. Throwing rolls the batch back; the consumer
   * is retried with backoff while the other consumers go on. Calls to other services (Temporal, HTTP) belong in the
   * returned after-commit step, never inside the transaction: an open transaction holds the outbox horizon of every
   * database on the server (cursor.ts) for as long as the call takes.
   */
  consume(trx: Trx, events: OutboxEvent[]): Promise<AfterCommit | void>;
  /**
   * Optional: re-drives work whose after-commit step may have been lost (the process died between the commit and
   * the step). Runs after every pass.
   */
  sweep?(): Promise<void>;
  /** Optional: ends work the consumer runs beside the relay's loop (the relay calls it when it stops). */
  stop?(): Promise<void>;
  /**
   * Where a consumer's cursor starts the first time it runs in a mode: at the first event ever written, or after every
   * event committed before that moment. Defaults to `beginning`.
   */
  startAt?: 'beginning' | 'now';
}
