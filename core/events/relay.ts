/**
 * The webhook relay (DECISIONS §4): outbox events → delivery rows → one `webhook-delivery-<deliveryId>` workflow each.
 * It wakes on the events trigger's NOTIFY (commit-to-start latency of milliseconds) and also polls, so a missed
 * notification or a dropped LISTEN connection only delays work. Starting is idempotent: an already-running workflow
 * is fine, and a delivery whose start was lost (crash between commit and start) has no `workflow_started_at` and is
 * started by the next sweep. Runs per mode inside the webhooks worker process.
 */
import { Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import pg from 'pg';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import type { Logger } from '../platform/logger';
import { TASK_QUEUES, WORKFLOW_TYPES, workflowIds } from '../temporal/names';
import {
  OUTBOX_CHANNEL,
  dispatchEvents,
  listUnstartedDeliveries,
  markWorkflowsStarted,
  type DeliveryRef,
} from '../webhooks/dispatch';

export interface WebhookRelayOptions {
  mode: Mode;
  db: Db;
  /** For the dedicated LISTEN connection (a pooled one could be handed to another query). */
  databaseUrl: string;
  /** A client in the mode's namespace. */
  client: Client;
  logger: Logger;
  taskQueue?: string;
  /** Fallback poll, for notifications missed while the LISTEN connection was down. */
  pollIntervalMs?: number;
  batchSize?: number;
}

export interface WebhookRelay {
  /** Stops waking, finishes the pass in progress (so no start is cut in half), closes the LISTEN connection. */
  stop(): Promise<void>;
}

const START_CONCURRENCY = 100;
const RECONNECT_DELAY_MS = 1_000;
const DEFAULT_POLL_MS = 2_000;

export function startWebhookRelay(options: WebhookRelayOptions): WebhookRelay {
  return new OutboxRelay(options);
}

class OutboxRelay implements WebhookRelay {
  private readonly taskQueue: string;
  private readonly batchSize: number;
  private readonly log: Logger;
  private readonly listener: { close(): Promise<void> };
  private readonly loop: Promise<void>;
  private stopped = false;
  /** Set by every kick; a pass clears it first, so a kick during a pass means "go again". */
  private pending = true;
  private wake: (() => void) | undefined;

  constructor(private readonly options: WebhookRelayOptions) {
    this.taskQueue = options.taskQueue ?? TASK_QUEUES.webhooks;
    this.batchSize = options.batchSize ?? 500;
    this.log = options.logger.child({ component: 'webhook-relay', mode: options.mode });
    this.listener = listen(
      options.databaseUrl,
      () => this.kick(),
      this.log,
      () => this.stopped,
    );
    this.loop = this.run();
    this.log.info({ taskQueue: this.taskQueue }, 'webhook relay started');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.listener.close();
    this.log.info('webhook relay stopped');
  }

  private kick(): void {
    this.pending = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      this.pending = false;
      try {
        await this.pass();
        failures = 0;
      } catch (err) {
        failures++;
        this.log.warn({ err, failures }, 'relay pass failed; retrying');
      }
      if (this.stopped) break;
      if (failures > 0) await this.sleep(backoff(failures));
      else if (!this.pending) await this.sleep(this.options.pollIntervalMs ?? DEFAULT_POLL_MS);
    }
  }

  /** Dispatches the whole outbox, then starts whatever is still unstarted (earlier crashes, test pings, retries). */
  private async pass(): Promise<void> {
    const { db, mode } = this.options;
    for (;;) {
      const { events, deliveries } = await dispatchEvents(db, mode, this.batchSize);
      await this.startAll(deliveries);
      if (deliveries.length > 0) this.log.debug({ events, deliveries: deliveries.length }, 'dispatched events');
      if (events < this.batchSize) break;
    }
    for (;;) {
      const unstarted = await listUnstartedDeliveries(db, mode, this.batchSize);
      await this.startAll(unstarted);
      if (unstarted.length < this.batchSize) break;
    }
  }

  /** Starts each run, marks the ones that started, and throws if any did not (the next pass retries them). */
  private async startAll(refs: DeliveryRef[]): Promise<void> {
    const failures: unknown[] = [];
    for (let i = 0; i < refs.length; i += START_CONCURRENCY) {
      const chunk = refs.slice(i, i + START_CONCURRENCY);
      const results = await Promise.allSettled(chunk.map((ref) => this.start(ref)));
      await markWorkflowsStarted(
        this.options.db,
        chunk.filter((_, j) => results[j]!.status === 'fulfilled'),
      );
      results.forEach((r) => r.status === 'rejected' && failures.push(r.reason));
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} delivery workflows did not start`);
  }

  private async start(ref: DeliveryRef): Promise<void> {
    try {
      await this.options.client.workflow.start(WORKFLOW_TYPES.webhookDelivery, {
        taskQueue: this.taskQueue,
        workflowId: workflowIds.webhookDelivery(ref.deliveryId),
        args: [ref],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err; // already running: that is the point
    }
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

function backoff(failures: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
}

/** LISTEN on a dedicated connection, reconnecting after errors; every notification kicks the relay. */
function listen(databaseUrl: string, kick: () => void, log: Logger, stopped: () => boolean) {
  let current: pg.Client | undefined;
  let reconnect: NodeJS.Timeout | undefined;

  const connect = async () => {
    const conn = new pg.Client({ connectionString: databaseUrl, application_name: 'webhook-relay' });
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
    conn.on('notification', kick);
    conn.on('error', onLost);
    conn.on('end', () => onLost());
    try {
      await conn.connect();
      await conn.query(`LISTEN ${OUTBOX_CHANNEL}`);
      kick(); // anything committed while we were not listening
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
