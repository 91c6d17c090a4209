/**
 * A burst, end to end (issue 38 item 6): one tenant raises BURST_DEBTS debts through the API (each with a debtor
 * email, so each starts its lifecycle workflow, a `debt.created` delivery and a portal mail), on one Temporal dev
 * server, the lifecycle worker and one — then two — webhooks worker processes, all compiled, as production runs them.
 * Printed: how long until every `debt.created` of the burst was received by a fast receiver (and its rate, target
 * ≥ 33/s: 10,000 within 5 minutes), how long the lifecycle starts and the portal mails took, another tenant's
 * delivery p99 while the burst drains (a test ping every 250 ms; target < 1 s), and the same server's no-op workflow
 * floor measured right after (its limit for one workflow and one activity). Standalone:
 * `npx tsx test/bench/burst.bench.ts` (BURST_DEBTS=10000).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEBT_LIFECYCLE_CONSUMER } from '../../core/lifecycle/lifecycle-consumer';
import type { Db } from '../../core/platform/db';
import { inlineDebtBody } from '../support/debt-api';
import { stopSharedMailSink } from '../support/mail-sink';
import { closeSharedResources } from '../support/resources';
import { waitFor } from '../support/wait';
import type { WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, localWebhookConfig } from '../support/webhooks';
import { check, observe, recordMemory, type BenchReport, type Check } from './report';
import { watchStatements, type LongestStatement } from './statement-watch';
import { consumersCaughtUp, countOf, startBenchStack, stopBenchStack, workersRunning, type BenchStack } from './stack';
import { benchTenant, buildCompiled, childPids, peakMemoryMiB, percentile, type BenchTenant } from './support';
import { inParallel, noopWorkflowFloor } from './workflow-floor';

const RAISE_CONCURRENCY = 32;
const PING_EVERY_MS = 250;
/**
 * How long a burst may take to drain: 15 minutes, or longer for a burst big enough to need more at 5 debts a second
 * (10,000 on the production profile's Temporal on PostgreSQL drain at 10–12 a second here: a 15-minute wait timed out).
 */
const drainTimeoutMs = (debts: number) => Math.max(15 * 60_000, (debts / 5) * 1000);

export interface BurstResult {
  webhooksWorkers: number;
  debts: number;
  raiseSeconds: number;
  /** From the first raise until the last `debt.created` of the burst was received. */
  deliveredSeconds: number;
  deliveriesPerSecond: number;
  lifecycleStartedSeconds: number;
  mailedSeconds: number;
  otherTenantP50Ms: number;
  otherTenantP99Ms: number;
  otherTenantPings: number;
  /**
   * The bystander's wait split where the bench can read the database: from its 202 to its delivery's workflow started
   * (the outbox, the fair starter, the start itself) and from there to the receipt (the workflow's tasks, the attempt).
   */
  otherTenantToStart?: { p50Ms: number; p99Ms: number };
  otherTenantStartToReceipt?: { p50Ms: number; p99Ms: number };
  /** The app's statement seen running longest in the mode's database, from the first raise to the drain. */
  longestStatement?: LongestStatement;
}

/**
 * Seconds from `since` until `done` holds (polled once a second). A wait that times out says how far it got
 * (`progress`), so a run too slow for the deadline still reports its rate.
 */
async function secondsUntil(
  since: number,
  timeoutMs: number,
  what: string,
  done: () => Promise<boolean>,
  progress?: () => string,
): Promise<number> {
  await waitFor(done, { what, timeoutMs, intervalMs: 1_000 }).catch((err: Error) => {
    throw progress ? new Error(`${err.message} (${progress()})`) : err;
  });
  return (Date.now() - since) / 1000;
}

/** What a burst needs of a stack: its API, two tenants' keys, their receiver, and how to tell the work is done. */
export interface BurstTarget {
  baseUrl: string;
  /** Plain fetch, or the production profile's (through its TLS proxy, trusting its CA). */
  fetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<Answer>;
  /** The `Authorization` headers of the tenant that bursts and of the bystander. */
  big: string;
  other: string;
  receiver: WebhookReceiver;
  /** Whether every lifecycle of the burst's debts has started. */
  lifecycleStarted: (debts: number) => Promise<boolean>;
  /** Whether every portal mail of the burst was sent; absent where the bench cannot see the mail queue. */
  mailed?: (debts: number) => Promise<boolean>;
  /** When each event's delivery workflow was started (ms since the epoch), by event id, from the database. */
  workflowStartedAt?: (eventIds: string[]) => Promise<Map<string, number>>;
  /** The mode's database, watched for the app's longest statement during the burst. */
  database?: Db;
}

interface Answer {
  status: number;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

/**
 * One burst: `debts` raised by one tenant, 32 at a time, while the bystander sends a test event every 250 ms. Its
 * latency runs from the 202 (the event is committed before the API answers) to the receipt.
 */
export async function runBurst(target: BurstTarget, debts: number, webhooksWorkers: number): Promise<BurstResult> {
  const pings: { eventId: string; answeredAt: number }[] = [];
  let pinging = true;
  const pinger = (async () => {
    while (pinging) {
      const res = await target.fetch(`${target.baseUrl}/v1/webhooks/test`, {
        method: 'POST',
        headers: { authorization: target.other },
      });
      if (res.status === 202)
        pings.push({ eventId: ((await res.json()) as { eventId: string }).eventId, answeredAt: Date.now() });
      await sleep(PING_EVERY_MS);
    }
  })();
  const watch = target.database && watchStatements(target.database);
  const started = Date.now();
  const raising = inParallel(debts, RAISE_CONCURRENCY, async () => {
    const res = await target.fetch(`${target.baseUrl}/v1/debts`, {
      method: 'POST',
      headers: { authorization: target.big, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(inlineDebtBody()),
    });
    if (res.status !== 201) throw new Error(`POST /v1/debts answered ${res.status}: ${await res.text()}`);
  });
  // A raise or a wait that fails ends the burst with its own error, not with the pinger's once the stack is gone (an
  // unhandled rejection that ended the whole bench before its summary).
  const stopPinging = async () => {
    pinging = false;
    await pinger.catch(() => undefined);
    await watch?.stop().catch(() => undefined);
  };
  const timings = await (async () => {
    await raising;
    const raiseSeconds = (Date.now() - started) / 1000;
    const received = () => target.receiver.requests.filter((r) => r.body.type === 'debt.created').length;
    const drainMs = drainTimeoutMs(debts);
    const deliveredSeconds = await secondsUntil(
      started,
      drainMs,
      'every debt.created to be received',
      async () => received() >= debts,
      () => {
        const arrived = received();
        return `${arrived} of ${debts} received, ${(arrived / ((Date.now() - started) / 1000)).toFixed(1)}/s`;
      },
    );
    const lifecycleStartedSeconds = await secondsUntil(started, drainMs, 'every lifecycle to start', () =>
      target.lifecycleStarted(debts),
    );
    const mailed = target.mailed;
    const mailedSeconds = mailed
      ? await secondsUntil(started, drainMs, 'every portal mail to be sent', () => mailed(debts))
      : NaN;
    return { raiseSeconds, deliveredSeconds, lifecycleStartedSeconds, mailedSeconds };
  })().catch(async (err: unknown) => {
    await stopPinging();
    throw err;
  });
  const { raiseSeconds, deliveredSeconds, lifecycleStartedSeconds, mailedSeconds } = timings;
  pinging = false;
  await pinger;
  const longestStatement = await watch?.stop();
  const receipts = new Map(target.receiver.requests.map((r) => [r.body.id, r.receivedAt]));
  const latencies = pings.map((p) => (receipts.get(p.eventId) ?? Date.now()) - p.answeredAt);
  const startedAt = await target.workflowStartedAt?.(pings.map((p) => p.eventId));
  const split = (span: (p: (typeof pings)[number], started: number) => number) => {
    const spans = pings.flatMap((p) => {
      const started = startedAt?.get(p.eventId);
      return started === undefined ? [] : [span(p, started)];
    });
    return spans.length === 0 ? undefined : { p50Ms: percentile(spans, 50), p99Ms: percentile(spans, 99) };
  };
  return {
    webhooksWorkers,
    debts,
    raiseSeconds,
    deliveredSeconds,
    deliveriesPerSecond: debts / deliveredSeconds,
    lifecycleStartedSeconds,
    mailedSeconds,
    otherTenantP50Ms: percentile(latencies, 50),
    otherTenantP99Ms: percentile(latencies, 99),
    otherTenantPings: latencies.length,
    otherTenantToStart: split((p, started) => started - p.answeredAt),
    otherTenantStartToReceipt: split((p, started) => (receipts.get(p.eventId) ?? Date.now()) - started),
    longestStatement,
  };
}

/** When each event's delivery workflow was started, read from a mode's database. */
export async function deliveryWorkflowsStartedAt(db: Db, eventIds: string[]): Promise<Map<string, number>> {
  const rows = await db('webhook_deliveries')
    .whereIn('event_id', eventIds)
    .whereNotNull('workflow_started_at')
    .select<{ event_id: string; workflow_started_at: Date }[]>('event_id', 'workflow_started_at');
  return new Map(rows.map((r) => [r.event_id, r.workflow_started_at.getTime()]));
}

/** The development rig as a burst target: its tenants made in its database, its queues read there. */
async function devTarget(rig: BenchStack): Promise<BurstTarget> {
  const webhooks = localWebhookConfig();
  const big: BenchTenant = await benchTenant(rig.db, 'Bench burst');
  const other: BenchTenant = await benchTenant(rig.db, 'Bench burst bystander');
  for (const t of [big, other]) await configureReceiver(webhooks, t.organizationId, rig.receiver.url, rig.db);
  return {
    baseUrl: rig.api.baseUrl,
    fetch: (url, init) => fetch(url, init),
    big: big.authorization,
    other: other.authorization,
    receiver: rig.receiver,
    // Started: the lifecycle consumer has taken every event, and no start it recorded is still waiting to be made.
    lifecycleStarted: async () => {
      const waiting = await countOf(rig.db, 'lifecycle_pending_starts where organization_id = ?', [big.organizationId]);
      return waiting === 0 && (await consumersCaughtUp(rig.db, [DEBT_LIFECYCLE_CONSUMER]));
    },
    mailed: async (debts) => {
      const sent = await countOf(
        rig.db,
        `debtor_notifications where organization_id = ? and kind = 'portal_link' and status = 'sent'`,
        [big.organizationId],
      );
      return sent >= debts;
    },
    workflowStartedAt: (eventIds) => deliveryWorkflowsStartedAt(rig.db, eventIds),
    database: rig.db,
  };
}

export function printBurst(r: BurstResult, floor: number, where = 'the dev server'): void {
  const f = (n: number) => n.toFixed(1);
  console.log(
    `\nburst on ${where}: ${r.debts} debts from one tenant, ${r.webhooksWorkers} webhooks worker process(es)`,
  );
  console.log(`  raised in ${f(r.raiseSeconds)} s (${f(r.debts / r.raiseSeconds)}/s)`);
  console.log(`  every debt.created received after ${f(r.deliveredSeconds)} s: ${f(r.deliveriesPerSecond)}/s`);
  const mail = Number.isNaN(r.mailedSeconds) ? '' : `; every portal mail after ${f(r.mailedSeconds)} s`;
  console.log(`  every lifecycle started after ${f(r.lifecycleStartedSeconds)} s${mail}`);
  console.log(
    `  another tenant's deliveries meanwhile: p50 ${r.otherTenantP50Ms.toFixed(0)} / p99 ${r.otherTenantP99Ms.toFixed(0)} ms over ${r.otherTenantPings}`,
  );
  const { otherTenantToStart: toStart, otherTenantStartToReceipt: toReceipt } = r;
  if (toStart && toReceipt)
    console.log(
      `    of which 202 → workflow started p50 ${toStart.p50Ms.toFixed(0)} / p99 ${toStart.p99Ms.toFixed(0)} ms, ` +
        `started → received p50 ${toReceipt.p50Ms.toFixed(0)} / p99 ${toReceipt.p99Ms.toFixed(0)} ms`,
    );
  if (r.longestStatement)
    console.log(
      `  the app's longest statement seen running meanwhile: ${r.longestStatement.ms.toFixed(0)} ms (${r.longestStatement.query}…)`,
    );
  console.log(`  the same server's no-op floor afterwards: ${f(floor)} workflows/s`);
}

export async function benchBurst(options: { debts?: number; report?: BenchReport } = {}): Promise<BurstResult[]> {
  const debts = options.debts ?? Number(process.env.BURST_DEBTS ?? 10_000);
  // BURST_WORKERS=2 runs only the two-worker stack (default: one, then two).
  const workerCounts = (process.env.BURST_WORKERS ?? '1,2').split(',').map(Number);
  buildCompiled();
  const results: BurstResult[] = [];
  for (const webhooksWorkers of workerCounts) {
    const rig = await startBenchStack({ database: 'bench_burst', webhooksWorkers });
    try {
      const result = await runBurst(await devTarget(rig), debts, webhooksWorkers);
      const floor = await noopWorkflowFloor(rig.temporal, 1_000, 32);
      printBurst(result, floor);
      results.push(result);
      if (options.report) {
        const report = options.report;
        const label = `${webhooksWorkers} webhooks worker${webhooksWorkers > 1 ? 's' : ''}`;
        check(report, {
          scenario: 'burst',
          name: `${debts} debts' debt.created delivered, ${label} (${f1(result.deliveredSeconds)} s; floor ${f1(floor)}/s)`,
          value: result.deliveriesPerSecond,
          unit: '/s',
          bound: { atLeast: 33 },
        });
        check(report, workflowsAgainstFloor('burst', result, floor, `the dev server, ${label}`));
        check(report, {
          scenario: 'burst',
          name: `another tenant's delivery p99 during the burst, ${label}`,
          value: result.otherTenantP99Ms,
          unit: 'ms',
          bound: { atMost: 1_000 },
        });
        observeLongestStatement(report, 'burst', result, label);
        observe(report, {
          scenario: 'burst',
          name: `every lifecycle started, ${label}`,
          value: result.lifecycleStartedSeconds,
          unit: 's',
        });
        observe(report, {
          scenario: 'burst',
          name: `every portal mail sent, ${label}`,
          value: result.mailedSeconds,
          unit: 's',
        });
        // Each worker named by the entry point it runs.
        const workers = [
          ...workersRunning(rig, 'lifecycle.js').map((w) => ({ name: 'lifecycle worker', w })),
          ...workersRunning(rig, 'webhooks.js').map((w, i) => ({ name: `webhooks worker ${i + 1}`, w })),
          ...workersRunning(rig, 'placements.js').map((w) => ({ name: 'placements worker', w })),
        ];
        for (const { name, w } of workers)
          recordMemory(report, `${name} (burst, ${label})`, w.child.pid!, peakMemoryMiB(w.child.pid!));
        for (const pid of childPids('start-dev'))
          recordMemory(report, `Temporal dev server (burst, ${label})`, pid, peakMemoryMiB(pid));
      }
    } finally {
      await stopBenchStack(rig);
    }
  }
  return results;
}

/**
 * Every debt of a burst is two workflows, its delivery and its lifecycle, each a start and its tasks; the floor is one
 * no-op workflow (a start, two workflow tasks and an activity task) at a time. So the burst's workflows a second — both
 * kinds, from the first raise until the later of the two finished — against the floor says how much of the server the
 * burst uses; deliveries alone can reach at most half of it.
 */
export function workflowsAgainstFloor(
  scenario: string,
  r: BurstResult,
  floor: number,
  where: string,
): Omit<Check, 'verdict'> {
  const workflowsPerSecond = (2 * r.debts) / Math.max(r.deliveredSeconds, r.lifecycleStartedSeconds);
  return {
    scenario,
    name: `deliveries and lifecycles started, ${where} (${f1(workflowsPerSecond)} workflows/s) / its no-op floor (${f1(floor)}/s)`,
    value: workflowsPerSecond / floor,
    unit: '×',
    bound: { atLeast: 0.9 },
  };
}

/** The burst's longest statement in the report (reported, no target), when the bench could watch the database. */
export function observeLongestStatement(report: BenchReport, scenario: string, r: BurstResult, label: string): void {
  if (r.longestStatement)
    observe(report, {
      scenario,
      name: `the app's longest statement seen running during the burst, ${label}`,
      value: r.longestStatement.ms,
      unit: 'ms',
    });
}

function f1(n: number): string {
  return n.toFixed(1);
}

if (require.main === module) {
  benchBurst()
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(async () => {
      await closeSharedResources();
      await stopSharedMailSink(); // its SMTP server would keep the process from ending
    });
}
