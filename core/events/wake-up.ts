/**
 * Waking the relays. The relays poll every 200 ms (DEFAULT_POLL_INTERVAL_MS in relay.ts): committing an event raises
 * no notification, because PostgreSQL serialises the commits of notifying transactions (migration 20261123110000
 * dropped that trigger). Rare operations that want an immediate pass (a delivery retry) NOTIFY on OUTBOX_CHANNEL;
 * the relays LISTEN on a dedicated connection, reconnecting after errors, so a missed notification only waits for
 * the next poll. TCP keepalive on the connection makes a silently dead peer (a failover, a NAT that dropped the
 * flow) an error within minutes, so the listener reconnects instead of waiting forever on a socket that is gone.
 */
import pg from 'pg';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';

export const OUTBOX_CHANNEL = 'webhook_outbox';

const RECONNECT_DELAY_MS = 1_000;
/** First keepalive probe after this much idle time (the kernel's default is two hours). */
const KEEPALIVE_IDLE_MS = 30_000;

/** Wakes every relay listening on this database (at commit, when called inside a transaction). */
export async function wakeRelays(db: Db): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [OUTBOX_CHANNEL, '']);
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
