/**
 * Starts workflows that rows in PostgreSQL say are owed (a delivery not yet started, a debt whose lifecycle is not),
 * fairly across organisations and without holding up whoever writes the rows.
 *
 * The outbox consumers used to start a batch's workflows before taking the next batch: under one tenant's burst,
 * every other tenant's event waited in the outbox behind thousands of the burst's starts, each a round trip to a busy
 * Temporal server. Now the consumer only records (or finds) the work in its batch's transaction and kicks this loop,
 * which keeps a queue per organisation in memory and starts them in turns, a bounded number at once: a tenant with one
 * new debt is served within one start of the queue, however many the tenant before it has queued.
 *
 * The rows stay the truth. A loop claims an organisation's oldest owed rows for a lease (so another worker process
 * does not start the same ones meanwhile), starts them, and records each start; a start that fails leaves its row owed
 * and claimable again two seconds later, and the rows of a process that dies are claimed again once their lease runs
 * out. Starting is idempotent (each workflow id is started once), so a lease that runs out while its start is in
 * flight costs a refused start, no more.
 */
import type { Logger } from '../platform/logger';

export interface OwedStart {
  organizationId: string;
}

/** Where the loop's work lives: in PostgreSQL, claimed for a lease and recorded once started. */
export interface StartSource<T extends OwedStart> {
  /**
   * Claims, for the lease, up to `perOrganization` of each organisation's oldest owed starts that no live lease holds,
   * leaving out the `skip` organisations (whose queues are still full here); each organisation's in its own order.
   */
  claim(perOrganization: number, skip: string[], leaseMs: number): Promise<T[]>;
  /** Starts one workflow; a workflow that already exists counts as started. Throws if it could not start it. */
  start(item: T): Promise<void>;
  /** Records that these were started, so they are no longer owed. */
  recordStarted(items: T[]): Promise<void>;
  /**
   * Shortens the claims of these, not started, to `afterMs` from now: 0 on stop, so another loop need not wait for
   * their lease; a short pause after a failed start, so a server that is down is not asked again at once.
   */
  release(items: T[], afterMs: number): Promise<void>;
}

export interface FairStarterOptions {
  /** Starts in flight at once. Beyond what keeps the server busy, more only lengthens every start's wait in it. */
  concurrency: number;
  /** Owed starts claimed per organisation at once; claimed again when its queue here is down to half. */
  perOrganization: number;
  /** How long a claim keeps other loops off an owed start. */
  leaseMs: number;
  logger: Logger;
}

/**
 * Kicked by its outbox consumer after each batch and after each pass of the relay (every 200 ms when idle); nothing
 * runs before the first kick.
 */
export interface FairStarter {
  /** There may be new owed starts: claim now. */
  kick(): void;
  /** Finishes the starts in flight, records them, gives back the rest's claims. */
  stop(): Promise<void>;
}

const RECORD_EVERY_MS = 50;
/** A failed start is claimable again this long after it failed (not after the whole lease). */
export const RETRY_FAILED_START_MS = 2_000;

export function createFairStarter<T extends OwedStart>(
  source: StartSource<T>,
  options: FairStarterOptions,
): FairStarter {
  const log = options.logger;
  const queues = new Map<string, T[]>(); // in turn order: an organisation served goes to the back
  const toRecord: T[] = [];
  let recordTimer: NodeJS.Timeout | undefined;
  let recording = Promise.resolve();
  let lanes: Promise<void>[] | undefined; // started by the first kick
  let stopped = false;
  let claiming = false;
  let claimAgain = false;
  const wakeLanes: (() => void)[] = [];

  /** The next owed start, in turns across organisations: the first organisation's, which then goes to the back. */
  function next(): T | undefined {
    const first = queues.entries().next();
    if (first.done) return undefined;
    const [organizationId, queue] = first.value; // never empty: an emptied queue is not put back
    queues.delete(organizationId);
    const item = queue.shift();
    if (queue.length > 0) queues.set(organizationId, queue);
    if (queue.length === Math.floor(options.perOrganization / 2)) kick(); // half gone: claim its next ones
    return item;
  }

  function kick(): void {
    if (stopped) return;
    lanes ??= Array.from({ length: options.concurrency }, lane);
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = true;
    void claim().finally(() => {
      claiming = false;
      if (claimAgain) {
        claimAgain = false;
        kick();
      }
    });
  }

  async function claim(): Promise<void> {
    const full = [...queues].filter(([, q]) => q.length > options.perOrganization / 2).map(([id]) => id);
    let claimed: T[];
    try {
      claimed = await source.claim(options.perOrganization, full, options.leaseMs);
    } catch (err) {
      log.warn({ err }, 'could not claim owed workflow starts; the next kick tries again');
      return;
    }
    for (const item of claimed) {
      const queue = queues.get(item.organizationId);
      if (queue) queue.push(item);
      else queues.set(item.organizationId, [item]);
    }
    if (claimed.length > 0) wakeLanes.splice(0).forEach((wake) => wake());
  }

  function record(item: T): void {
    toRecord.push(item);
    recordTimer ??= setTimeout(() => void flushRecords(), RECORD_EVERY_MS);
  }

  function flushRecords(): Promise<void> {
    clearTimeout(recordTimer);
    recordTimer = undefined;
    const batch = toRecord.splice(0);
    if (batch.length === 0) return recording;
    recording = recording.then(() =>
      // Not recorded: still owed, so claimed again once the lease runs out, and its start is refused as a duplicate.
      source.recordStarted(batch).catch((err: unknown) => log.warn({ err }, 'could not record started workflows')),
    );
    return recording;
  }

  async function lane(): Promise<void> {
    while (!stopped) {
      const item = next();
      if (!item) {
        await new Promise<void>((resolve) => wakeLanes.push(resolve));
        continue;
      }
      try {
        await source.start(item);
        record(item);
      } catch (err) {
        // Left owed, and claimable again shortly (by this loop or another).
        log.warn({ err, organizationId: item.organizationId }, 'workflow start failed; it is tried again shortly');
        await source.release([item], RETRY_FAILED_START_MS).catch(() => undefined); // else its lease runs out
      }
    }
  }

  return {
    kick,
    async stop() {
      stopped = true;
      wakeLanes.splice(0).forEach((wake) => wake());
      await Promise.all(lanes ?? []);
      await flushRecords();
      const unstarted = [...queues.values()].flat();
      queues.clear();
      if (unstarted.length > 0) await source.release(unstarted, 0).catch(() => undefined); // else their leases run out
    },
  };
}
