/**
 * Waking the relays. The events trigger (migration 20261122090200) raises a NOTIFY on OUTBOX_CHANNEL when an event
 * commits; a delivery retry raises one too. The relays LISTEN on a dedicated connection, reconnecting after errors,
 * and also poll (every 2 s, DEFAULT_POLL_INTERVAL_MS in relay.ts), so a missed notification or a dropped connection
 * only delays work. TCP keepalive on the connection makes a silently dead peer (a failover, a NAT that dropped the
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
