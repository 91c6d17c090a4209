/**
 * The outbox relay (DECISIONS.md §4): drives every registered consumer over the events of one mode. Each consumer has
 * its own cursor and its own loop, so a failing consumer backs off and retries alone while the others go on. A batch
 * is taken, consumed and the cursor moved in one transaction: a crash at any point either commits all three or none,
 * and the batch is taken again. Woken by the NOTIFY that follows each commit of events (wake-up.ts); polls every
 * 200 ms in case a wake-up is lost.
 */
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import type { Mode } from '../platform/mode';
import type { OutboxConsumer } from './consumer';
import { advanceCursor, claimBatch, ensureCursor } from './cursor';
import { listenForWakeUps } from './wake-up';

export interface OutboxRelayOptions {
  mode: Mode;
  db: Db;
  /** For the dedicated LISTEN connection. */
  databaseUrl: string;
  consumers: OutboxConsumer[];
  logger: Logger;
  /** Fallback poll, for notifications missed while the LISTEN connection was down. */
  pollIntervalMs?: number;
  batchSize?: number;
}

export interface OutboxRelay {
  /** Stops waking, lets each consumer finish the batch in hand, closes the LISTEN connection. */
  stop(): Promise<void>;
}

/** Short, so that a wake-up lost with a process that died between commit and NOTIFY costs little. */
export const DEFAULT_POLL_INTERVAL_MS = 200;
const DEFAULT_BATCH_SIZE = 500;

export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const log = options.logger.child({ component: 'outbox-relay', mode: options.mode });
  const names = options.consumers.map((c) => c.name);
  if (new Set(names).size !== names.length)
    throw new Error(`outbox consumers must have distinct names: ${names.join(', ')}`);
  let stopped = false;
  const loops = options.consumers.map((consumer) => new ConsumerLoop(consumer, options, log));
  const listener = listenForWakeUps(
    options.databaseUrl,
    () => loops.forEach((loop) => loop.kick()),
    log,
    () => stopped,
  );
  log.info({ consumers: names }, 'outbox relay started');
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops.map((loop) => loop.stop()));
      for (const consumer of options.consumers) if (consumer.stop) await consumer.stop();
      await listener.close();
      log.info('outbox relay stopped');
    },
  };
}

class ConsumerLoop {
  private readonly log: Logger;
  private readonly done: Promise<void>;
  private stopped = false;
  /** Set by every kick; a pass clears it first, so a kick during a pass means "go again". */
  private pending = true;
  private wake: (() => void) | undefined;

  constructor(
    private readonly consumer: OutboxConsumer,
    private readonly options: OutboxRelayOptions,
    log: Logger,
  ) {
    this.log = log.child({ consumer: consumer.name });
    this.done = this.run();
  }

  kick(): void {
    this.pending = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.done;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let ready = false;
    while (!this.stopped) {
      this.pending = false;
      try {
        if (!ready) await ensureCursor(this.options.db, this.consumer, this.options.mode);
        ready = true;
        await this.pass();
        failures = 0;
      } catch (err) {
        failures++;
        this.log.warn({ err, failures }, 'outbox consumer failed; retrying with backoff');
      }
      if (this.stopped) break;
      if (failures > 0) await this.sleep(backoff(failures));
      else if (!this.pending) await this.sleep(this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    }
  }

  /** Takes batches until the consumer is up to the horizon, then lets it sweep. */
  private async pass(): Promise<void> {
    const batchSize = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
    while (!this.stopped && (await this.takeBatch(batchSize)) === batchSize);
    await this.consumer.sweep?.();
  }

  private async takeBatch(limit: number): Promise<number> {
    const taken = await takeBatch(this.options.db, this.options.mode, this.consumer, limit);
    if (taken > 0) this.log.debug({ events: taken }, 'consumed events');
    return taken;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/**
 * One batch for one consumer, in one transaction: claim the cursor, consume, advance; then the consumer's after-commit
 * step. Returns how many events were taken (0 when there are none, or another relay holds the cursor).
 */
export async function takeBatch(db: Db, mode: Mode, consumer: OutboxConsumer, limit: number): Promise<number> {
  const { taken, afterCommit } = await db.transaction(async (trx) => {
    const batch = await claimBatch(trx, consumer.name, mode, limit);
    const last = batch?.events.at(-1);
    if (!batch || !last) return { taken: 0, afterCommit: undefined };
    const after = await consumer.consume(trx, batch.events);
    await advanceCursor(trx, consumer.name, mode, { txid: last.txid, seq: last.seq });
    return { taken: batch.events.length, afterCommit: after ?? undefined };
  });
  if (afterCommit) await afterCommit();
  return taken;
}

function backoff(failures: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
}
