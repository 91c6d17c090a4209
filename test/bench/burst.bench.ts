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
import { inlineDebtBody } from '../support/debt-api';
import { stopSharedMailSink } from '../support/mail-sink';
import { closeSharedResources } from '../support/resources';
import { waitFor } from '../support/wait';
import { configureReceiver, localWebhookConfig } from '../support/webhooks';
import { check, observe, recordMemory, type BenchReport } from './report';
import { consumersCaughtUp, countOf, startBenchStack, stopBenchStack, type BenchStack } from './stack';
import { benchTenant, buildCompiled, childPids, peakMemoryMiB, percentile, type BenchTenant } from './support';
import { inParallel, noopWorkflowFloor } from './workflow-floor';

const RAISE_CONCURRENCY = 32;
const PING_EVERY_MS = 250;
const DRAIN_TIMEOUT_MS = 15 * 60_000;

export interface BurstResult {
  webhooksWorkers: number;
  debts: number;
  raiseSeconds: number;
  /** From the first raise until the last `debt.created` of the burst was received. */
  deliveredSeconds: number;
  deliveriesPerSecond: number;
  lifecycleStartedSeconds: number;
  mailedSeconds: number;
  otherTenantP99Ms: number;
  otherTenantPings: number;
}

/** Seconds from `since` until `done` holds (polled once a second). */
async function secondsUntil(since: number, what: string, done: () => Promise<boolean>): Promise<number> {
  await waitFor(done, { what, timeoutMs: DRAIN_TIMEOUT_MS, intervalMs: 1_000 });
  return (Date.now() - since) / 1000;
}

async function burst(rig: BenchStack, debts: number, webhooksWorkers: number): Promise<BurstResult> {
  const webhooks = localWebhookConfig();
  const big: BenchTenant = await benchTenant(rig.db, 'Bench burst');
  const other: BenchTenant = await benchTenant(rig.db, 'Bench burst bystander');
  for (const t of [big, other]) await configureReceiver(webhooks, t.organizationId, rig.receiver.url, rig.db);
  // The bystander pings its receiver all along: each ping's commit → receipt is its delivery latency.
  const pings: string[] = [];
  let pinging = true;
  const pinger = (async () => {
    while (pinging) {
      const res = await fetch(`${rig.api.baseUrl}/v1/webhooks/test`, {
        method: 'POST',
        headers: { authorization: other.authorization },
      });
      if (res.status === 202) pings.push(((await res.json()) as { eventId: string }).eventId);
      await sleep(PING_EVERY_MS);
    }
  })();
  const started = Date.now();
  await inParallel(debts, RAISE_CONCURRENCY, async () => {
    const res = await fetch(`${rig.api.baseUrl}/v1/debts`, {
      method: 'POST',
      headers: {
        authorization: big.authorization,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify(inlineDebtBody()),
    });
    if (res.status !== 201) throw new Error(`POST /v1/debts answered ${res.status}: ${await res.text()}`);
  });
  const raiseSeconds = (Date.now() - started) / 1000;
  const received = () => rig.receiver.requests.filter((r) => r.body.type === 'debt.created').length;
  const deliveredSeconds = await secondsUntil(started, 'every debt.created to be received', async () => {
    return received() >= debts;
  });
  // Started: the lifecycle consumer has taken every event, and no start it recorded is still waiting to be made.
  const lifecycleStartedSeconds = await secondsUntil(started, 'every lifecycle to start', async () => {
    const waiting = await countOf(rig.db, 'lifecycle_pending_starts where organization_id = ?', [big.organizationId]);
    return waiting === 0 && (await consumersCaughtUp(rig.db, [DEBT_LIFECYCLE_CONSUMER]));
  });
  const mailedSeconds = await secondsUntil(started, 'every portal mail to be sent', async () => {
    const sent = await countOf(
      rig.db,
      `debtor_notifications where organization_id = ? and kind = 'portal_link' and status = 'sent'`,
      [big.organizationId],
    );
    return sent >= debts;
  });
  pinging = false;
  await pinger;
  const receipts = new Map(rig.receiver.requests.map((r) => [r.body.id, r.receivedAt]));
  const commits = await rig
    .db('events')
    .whereIn('id', pings)
    .select<{ id: string; created_at: Date }[]>('id', 'created_at');
  const latencies = commits.map((c) => (receipts.get(c.id) ?? Date.now()) - c.created_at.getTime());
  return {
    webhooksWorkers,
    debts,
    raiseSeconds,
    deliveredSeconds,
    deliveriesPerSecond: debts / deliveredSeconds,
    lifecycleStartedSeconds,
    mailedSeconds,
    otherTenantP99Ms: percentile(latencies, 99),
    otherTenantPings: latencies.length,
  };
}

function print(r: BurstResult, floor: number): void {
  const f = (n: number) => n.toFixed(1);
  console.log(`\nburst: ${r.debts} debts from one tenant, ${r.webhooksWorkers} webhooks worker process(es)`);
  console.log(`  raised in ${f(r.raiseSeconds)} s (${f(r.debts / r.raiseSeconds)}/s)`);
  console.log(`  every debt.created received after ${f(r.deliveredSeconds)} s: ${f(r.deliveriesPerSecond)}/s`);
  console.log(
    `  every lifecycle started after ${f(r.lifecycleStartedSeconds)} s; every portal mail after ${f(r.mailedSeconds)} s`,
  );
  console.log(
    `  another tenant's deliveries meanwhile: p99 ${r.otherTenantP99Ms.toFixed(0)} ms over ${r.otherTenantPings}`,
  );
  console.log(`  the same server's no-op floor afterwards: ${f(floor)} workflows/s`);
}

export async function benchBurst(options: { debts?: number; report?: BenchReport } = {}): Promise<BurstResult[]> {
  const debts = options.debts ?? Number(process.env.BURST_DEBTS ?? 10_000);
  buildCompiled();
  const results: BurstResult[] = [];
  for (const webhooksWorkers of [1, 2]) {
    const rig = await startBenchStack({ database: 'bench_burst', webhooksWorkers });
    try {
      const result = await burst(rig, debts, webhooksWorkers);
      const floor = await noopWorkflowFloor(rig.temporal, 1_000, 32);
      print(result, floor);
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
        check(report, {
          scenario: 'burst',
          name: `another tenant's delivery p99 during the burst, ${label}`,
          value: result.otherTenantP99Ms,
          unit: 'ms',
          bound: { atMost: 1_000 },
        });
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
        rig.workers.forEach((w, i) =>
          recordMemory(
            report,
            `${i === 0 ? 'lifecycle worker' : `webhooks worker ${i}`} (burst, ${label})`,
            w.child.pid!,
            peakMemoryMiB(w.child.pid!),
          ),
        );
        for (const pid of childPids('start-dev'))
          recordMemory(report, `Temporal dev server (burst, ${label})`, pid, peakMemoryMiB(pid));
      }
    } finally {
      await stopBenchStack(rig);
    }
  }
  return results;
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
