/**
 * Waking the relays. A NOTIFY inside the transaction that records an event would serialise commits: PostgreSQL takes
 * a global lock to commit a notifying transaction (migration 20261123110000 dropped that trigger). So the event's
 * transaction notifies nobody; once it has committed, its process sends one NOTIFY on OUTBOX_CHANNEL in a statement of
 * its own, coalesced to at most one per WAKE_SPACING_MS per pool (wakeRelaysOnCommit). The relays LISTEN on a
 * dedicated connection, reconnecting after errors, and also poll every 200 ms (DEFAULT_POLL_INTERVAL_MS in
 * relay.ts), so a lost notification (a process that died between commit and NOTIFY) only waits for the next poll. TCP keepalive on the connection makes a silently dead peer (a failover, a NAT that dropped the
 * flow) an error within minutes, so the listener reconnects instead of waiting forever on a socket that is gone.
 */
import pg from 'pg';
import { isPoolOpen, poolOf, type Db, type Trx } from '../platform/db';
import type { Logger } from '../platform/logger';
import { queryNamed } from '../platform/prepared';

export const OUTBOX_CHANNEL = 'webhook_outbox';

const RECONNECT_DELAY_MS = 1_000;
/** First keepalive probe after this much idle time (the kernel's default is two hours). */
const KEEPALIVE_IDLE_MS = 30_000;

/** Wakes every relay listening on this database (at commit, when called inside a transaction). */
export async function wakeRelays(db: Db): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [OUTBOX_CHANNEL, '']);
}

const NOTIFY_SQL = 'select pg_notify($1, $2)';

/** However many event transactions commit, a pool notifies at most once in this many milliseconds. */
export const WAKE_SPACING_MS = 10;

/** Per pool: when it last notified, and whether a notification is already due. */
const wakeStates = new WeakMap<Db, { lastAt: number; due: boolean }>();

/**
 * Wakes the relays once `trx` has committed (nothing on rollback). Best effort: a failed NOTIFY is dropped, as the
 * relays' poll is the fallback.
 */
export function wakeRelaysOnCommit(trx: Trx): void {
  const pool = poolOf(trx);
  if (!pool) return;
  outermost(trx).executionPromise.then(
    () => wakeRelaysSoon(pool),
    () => undefined,
  );
}

/** A savepoint's promise settles at its release; the events are visible when the outermost transaction commits. */
function outermost(trx: Trx): Trx {
  let current = trx as Trx & { parentTransaction?: Trx };
  while (current.parentTransaction) current = current.parentTransaction;
  return current;
}

/** Wakes the relays shortly, coalesced per pool: for a transaction that has just committed an event. */
export function wakeRelaysSoon(pool: Db): void {
  let state = wakeStates.get(pool);
  if (!state) wakeStates.set(pool, (state = { lastAt: 0, due: false }));
  if (state.due) return;
  state.due = true;
  const wake = state;
  const delay = Math.max(0, wake.lastAt + WAKE_SPACING_MS - Date.now());
  setTimeout(() => {
    wake.due = false;
    wake.lastAt = Date.now();
    // A pool destroyed since the commit (its process shutting down) has no connection to notify from, and knex would
    // print its refusal as a connection error; the relays' poll finds the event anyway.
    if (!isPoolOpen(pool)) return;
    // A named statement beneath knex's runner: at hundreds of commits a second this runs every WAKE_SPACING_MS.
    queryNamed(pool, NOTIFY_SQL, [OUTBOX_CHANNEL, '']).catch(() => undefined);
  }, delay).unref();
}

export interface WakeUpListener {
  close(): Promise<void>;
}

/** LISTEN on a connection of its own (a pooled one could be handed to another query); calls `onWake` per notice. */
export function listenForWakeUps(
  databaseUrl: string,
  onWake: () => void,
  log: Logger,
  stopped: () => boolean,
): WakeUpListener {
  let current: pg.Client | undefined;
  let reconnect: NodeJS.Timeout | undefined;

  const connect = async () => {
    const conn = new pg.Client({
      connectionString: databaseUrl,
      application_name: 'outbox-relay',
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    });
    current = conn;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (stopped()) return;
      log.warn({ err: err?.message }, 'relay LISTEN connection lost; polling until it is back');
      void conn.end().catch(() => undefined);
      reconnect = setTimeout(() => void connect(), RECONNECT_DELAY_MS);
    };
    conn.on('notification', onWake);
    conn.on('error', onLost);
    conn.on('end', () => onLost());
    try {
      await conn.connect();
      await conn.query(`LISTEN ${OUTBOX_CHANNEL}`);
      onWake(); // anything committed while we were not listening
    } catch (err) {
      onLost(err as Error);
    }
  };
  void connect();

  return {
    async close() {
      clearTimeout(reconnect);
      await current?.end().catch(() => undefined);
    },
  };
}
