/**
 * Outbox lag, per consumer: the age of the oldest event the consumer has not taken yet (0 when it has taken
 * everything). Computed when the metrics are scraped, by one query per registered mode, so it is exact at scrape time
 * and costs nothing between scrapes; the relay is not involved. An event whose transaction commits late counts from
 * when it was written, so a transaction left open on the server (which holds every consumer back) shows here.
 * A query that fails leaves that mode's series out of the scrape rather than failing the whole scrape.
 */
import { register, type Gauge, type Registry } from 'prom-client';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { gaugeOnce } from '../platform/process-metrics';

export const OUTBOX_LAG_METRIC = 'client_api_outbox_lag_seconds';

export interface OutboxLagSource {
  db: Db;
  mode: Mode;
  /** The consumers this process runs in `mode` (their cursors' names). */
  consumers: string[];
}

const sourcesByRegistry = new WeakMap<Registry, OutboxLagSource[]>();

/** Reports the consumers' lag in `registry` (prom-client's default unless given); returns the function that stops. */
export function reportOutboxLag(source: OutboxLagSource, registry: Registry = register): () => void {
  const sources = sourcesByRegistry.get(registry) ?? [];
  sourcesByRegistry.set(registry, sources);
  sources.push(source);
  gaugeOnce(registry, {
    name: OUTBOX_LAG_METRIC,
    help: 'Age in seconds of the oldest event an outbox consumer has not taken (0 when it is caught up)',
    labelNames: ['mode', 'consumer'] as const,
    async collect() {
      this.reset();
      await Promise.all((sourcesByRegistry.get(registry) ?? []).map((s) => collectSource(this, s)));
    },
  });
  return () => void sources.splice(sources.indexOf(source), 1);
}

async function collectSource(gauge: Gauge<'mode' | 'consumer'>, source: OutboxLagSource): Promise<void> {
  try {
    for (const { consumer, lag } of await outboxLag(source.db, source.mode, source.consumers)) {
      gauge.set({ mode: source.mode, consumer }, lag);
    }
  } catch {
    // the database does not answer: this mode's series are absent from this scrape (alert on absence)
  }
}

/**
 * Each consumer's lag in seconds: the first event after its cursor in outbox order (the index on (txid, seq)), aged
 * from its `created_at`. A consumer without a cursor yet is left out.
 */
export async function outboxLag(db: Db, mode: Mode, consumers: string[]): Promise<{ consumer: string; lag: number }[]> {
  const { rows } = await db.raw<{ rows: { consumer: string; lag: number }[] }>(
    `select c.consumer,
            coalesce(greatest(extract(epoch from clock_timestamp() - oldest.created_at), 0), 0)::float8 as lag
       from outbox_cursors c
       left join lateral (
         select e.created_at from events e join organizations o on o.id = e.organization_id
          where o.mode = c.mode and (e.txid, e.seq) > (c.txid, c.seq)
          order by e.txid, e.seq limit 1
       ) oldest on true
      where c.mode = ? and c.consumer = any(?)`,
    [mode, consumers],
  );
  return rows;
}
