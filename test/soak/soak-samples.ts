/**
 * What the soak follows besides latencies, sampled every SAMPLE_EVERY_MS: each process's resident memory and the
 * lag of each stage of the asynchronous work, in seconds —
 * - events → deliveries: the webhook consumer's outbox lag (the oldest event it has not turned into a delivery);
 * - deliveries → first attempt: the oldest delivery not tried once yet;
 * - debt.created → lifecycle: the lifecycle consumer's outbox lag (the oldest debt whose workflow is not started);
 * - debtor mail: the oldest notification not sent yet (not recorded yet counts: the notifications consumer's lag).
 * Each figure is the worse of the two modes.
 */
import { outboxLag } from '../../core/events/outbox-lag';
import { DEBT_LIFECYCLE_CONSUMER } from '../../core/lifecycle/lifecycle-consumer';
import { DEBTOR_NOTIFICATIONS_CONSUMER } from '../../core/notifications/notifications-consumer';
import type { Db } from '../../core/platform/db';
import type { Mode } from '../../core/platform/mode';
import { WEBHOOK_DELIVERY_CONSUMER } from '../../core/webhooks/delivery-consumer';
import { rssMiB, type SoakStack } from './soak-stack';

export const SAMPLE_EVERY_MS = 10_000;

export const LAGS = ['events → deliveries', 'deliveries → first attempt', 'debt.created → lifecycle', 'debtor mail'];

export interface StateSample {
  /** Seconds since the load started. */
  at: number;
  rssMiB: Record<string, number | undefined>;
  lagSeconds: Record<string, number>;
}

async function oldestAge(db: Db, sql: string): Promise<number> {
  const { rows } = await db.raw<{ rows: { age: number | null }[] }>(
    `select extract(epoch from clock_timestamp() - min(created_at))::float8 as age from ${sql}`,
  );
  return Math.max(0, rows[0]?.age ?? 0);
}

async function lags(dbs: Record<Mode, Db>): Promise<Record<string, number>> {
  const consumers = [WEBHOOK_DELIVERY_CONSUMER, DEBT_LIFECYCLE_CONSUMER, DEBTOR_NOTIFICATIONS_CONSUMER];
  const byConsumer = new Map<string, number>();
  for (const mode of ['production', 'sandbox'] as const) {
    for (const { consumer, lag } of await outboxLag(dbs[mode], mode, consumers)) {
      byConsumer.set(consumer, Math.max(byConsumer.get(consumer) ?? 0, lag));
    }
  }
  let untried = 0;
  let unsent = 0;
  for (const db of new Set(Object.values(dbs))) {
    untried = Math.max(
      untried,
      await oldestAge(db, `webhook_deliveries where status = 'Pending' and attempt_count = 0`),
    );
    unsent = Math.max(unsent, await oldestAge(db, `debtor_notifications where status in ('pending', 'sending')`));
  }
  return {
    [LAGS[0]!]: byConsumer.get(WEBHOOK_DELIVERY_CONSUMER) ?? 0,
    [LAGS[1]!]: untried,
    [LAGS[2]!]: byConsumer.get(DEBT_LIFECYCLE_CONSUMER) ?? 0,
    [LAGS[3]!]: Math.max(unsent, byConsumer.get(DEBTOR_NOTIFICATIONS_CONSUMER) ?? 0),
  };
}

export interface Sampler {
  samples: StateSample[];
  stop(): Promise<void>;
}

/** Samples now and every SAMPLE_EVERY_MS until stopped; `started` is the load's start (ms since the epoch). */
export function startSampler(stack: SoakStack, started: number): Sampler {
  const samples: StateSample[] = [];
  let timer: NodeJS.Timeout | undefined;
  let last: Promise<void> = Promise.resolve();
  const take = async () => {
    const rss = Object.fromEntries(Object.entries(stack.processes()).map(([name, pid]) => [name, rssMiB(pid)]));
    const lagSeconds = await lags(stack.dbs);
    samples.push({ at: (Date.now() - started) / 1000, rssMiB: rss, lagSeconds });
  };
  const tick = () => {
    last = take()
      .catch((err: unknown) => console.error('soak sample failed:', err))
      .finally(() => (timer = setTimeout(tick, SAMPLE_EVERY_MS)));
  };
  tick();
  return {
    samples,
    async stop() {
      clearTimeout(timer);
      await last;
      clearTimeout(timer);
    },
  };
}
