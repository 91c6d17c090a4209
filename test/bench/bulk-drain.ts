/**
 * A placement's deliveries under another tenant's steady load (issue 39, item 3): a placement's `debt.created`
 * deliveries run below the default priority (core/temporal/fairness.ts, BULK_PRIORITY_KEY), handed out only when no
 * other run's task is waiting. That must mean "after the rest", not "never while the rest is busy": the placement's
 * deliveries keep draining while another tenant raises debts at a steady rate below the machine's capacity.
 *
 * Three windows of equal length while the placement's deliveries are still owed: alone, while another tenant raises
 * `ratePerSecond` debts a second through `POST /v1/debts` (each with its own `debt.created`, lifecycle and portal
 * mail), and alone again. Returned: the placement's deliveries received in each, and the other tenant's
 * `debt.created` latencies from the loaded window.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { waitFor } from '../support/wait';
import { raiseDebtOn, type BenchStack } from './stack';
import type { BenchTenant } from './support';

export interface BulkDrainWindow {
  seconds: number;
  /** The placement's deliveries received in the window. */
  bulkReceived: number;
  /** The other tenant's debts raised in the window (0 when alone). */
  otherRaised: number;
}

export interface BulkDrain {
  ratePerSecond: number;
  alone: BulkDrainWindow;
  underLoad: BulkDrainWindow;
  aloneAgain: BulkDrainWindow;
  /** Request sent → `debt.created` received, for each of the other tenant's debts of the loaded window. */
  otherDeliveredMs: number[];
}

/** How many of the other tenant's requests may be unanswered at once (a client's connection pool). */
const IN_FLIGHT = 16;

export async function bulkDrainUnderLoad(
  stack: BenchStack,
  options: {
    /** How many of the placement's deliveries its receiver has had so far. */
    bulkReceived: () => number;
    other: BenchTenant;
    /** When each of the other tenant's debts' `debt.created` arrived, by debt id. */
    otherDeliveredAt: () => Map<string, number>;
    windowSeconds: number;
    ratePerSecond: number;
  },
): Promise<BulkDrain> {
  const sent: { debtId: string; at: number }[] = [];
  const window = async (otherRaising: () => Promise<number>): Promise<BulkDrainWindow> => {
    const before = options.bulkReceived();
    const started = Date.now();
    const otherRaised = await otherRaising();
    return { seconds: (Date.now() - started) / 1000, bulkReceived: options.bulkReceived() - before, otherRaised };
  };
  const alone = await window(() => idle(options));
  const underLoad = await window(() => raiseSteadily(stack, options, sent));
  const aloneAgain = await window(() => idle(options));
  let delivered = options.otherDeliveredAt();
  await waitFor(
    () => {
      delivered = options.otherDeliveredAt();
      return sent.every((s) => delivered.has(s.debtId));
    },
    { what: `the other tenant's ${sent.length} debt.created deliveries`, timeoutMs: 10 * 60_000, intervalMs: 200 },
  );
  return {
    ratePerSecond: options.ratePerSecond,
    alone,
    underLoad,
    aloneAgain,
    otherDeliveredMs: sent.map((s) => delivered.get(s.debtId)! - s.at),
  };
}

async function idle(options: { windowSeconds: number }): Promise<number> {
  await sleep(options.windowSeconds * 1000);
  return 0;
}

/** One request every 1/rate seconds for the window (fewer if IN_FLIGHT are unanswered); returns how many were sent. */
async function raiseSteadily(
  stack: BenchStack,
  options: { other: BenchTenant; windowSeconds: number; ratePerSecond: number },
  sent: { debtId: string; at: number }[],
): Promise<number> {
  const end = Date.now() + options.windowSeconds * 1000;
  const everyMs = 1000 / options.ratePerSecond;
  const pending = new Set<Promise<void>>();
  const failures: unknown[] = [];
  let raised = 0;
  for (let next = Date.now(); next < end && failures.length === 0; next += everyMs) {
    await sleep(Math.max(0, next - Date.now()));
    if (pending.size >= IN_FLIGHT) await Promise.race(pending);
    raised++;
    const at = Date.now();
    const request: Promise<void> = raiseDebtOn(stack, options.other).then(
      (debtId) => void sent.push({ debtId, at }),
      (err: unknown) => void failures.push(err),
    );
    pending.add(request);
    void request.then(() => pending.delete(request));
  }
  await Promise.all(pending);
  if (failures.length > 0) throw failures[0];
  return raised;
}
