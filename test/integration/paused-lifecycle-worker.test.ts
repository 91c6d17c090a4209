/**
 * A slow Temporal never takes the API down, against the real processes: the API and the
 * lifecycle worker spawned as `npm start` runs them, on a Temporal dev server. With the worker stopped (SIGSTOP), 50
 * concurrent recalls from one organisation answer 503 (past the per-process cap at once, with Retry-After), no API
 * connection sits in a transaction while they wait, and another organisation's reads keep answering. Once the worker
 * resumes (SIGCONT) the same requests, retried under their Idempotency-Keys, succeed: each debt is Closed once, with
 * one `debt.updated`, including those whose first try had reached the workflow before it answered 503.
 */
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DEFAULT_TRIGGERS_IN_FLIGHT } from '../../core/lifecycle/trigger-limit';
import { callerFor, raiseDebt, type ApiAnswer, type Caller, type Debt } from '../support/debt-api';
import { testEnv } from '../support/env';
import { killGroup } from '../support/processes';
import { testDb } from '../support/resources';
import { startApi, startLifecycleWorker, type ApiProcess, type ServiceProcess } from '../support/service-processes';
import { DEV_SERVER_NAMESPACES, startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

const NAMESPACE = DEV_SERVER_NAMESPACES[0];
const API_NAME = 'paused-worker-test-api';
const separator = testEnv.databaseUrl.includes('?') ? '&' : '?';
const RECALLS = 50;

interface Timed<T> {
  answer: ApiAnswer<T>;
  ms: number;
}

async function timed<T>(call: () => Promise<ApiAnswer<T>>): Promise<Timed<T>> {
  const started = performance.now();
  const answer = await call();
  return { answer, ms: performance.now() - started };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Signals the worker's whole process group (tsx runs the worker in a child of its own). */
function signalGroup(proc: ServiceProcess, signal: NodeJS.Signals): void {
  process.kill(-proc.child.pid!, signal);
}

describe('a stopped lifecycle worker against the real API process', function () {
  this.timeout(240_000);
  let temporal: TestWorkflowEnvironment;
  let api: ApiProcess;
  let worker: ServiceProcess;
  let creditor: Caller;
  let other: Caller;
  let paused = false;

  before(async () => {
    temporal = await startDevServer();
    const shared = { TEMPORAL_ADDRESS: temporal.address, REDIS_URL: testEnv.redisUrl };
    [api, worker] = await Promise.all([
      // Its connections carry a name of their own, so the check below counts this API's and no one else's.
      startApi({
        ...shared,
        DATABASE_URL: `${testEnv.databaseUrl}${separator}application_name=${API_NAME}`,
        TEMPORAL_NAMESPACE: NAMESPACE,
      }),
      startLifecycleWorker({
        ...shared,
        WORKER_MODES: 'production',
        PRODUCTION_DATABASE_URL: testEnv.databaseUrl,
        PRODUCTION_TEMPORAL_NAMESPACE: NAMESPACE,
      }),
    ]);
    const limits = { hourlyLimit: 1e6, dailyLimit: 1e6 };
    const [a, b] = await Promise.all([
      createTestTenant({ name: 'Recalling Org', ...limits }),
      createTestTenant({ name: 'Reading Org', ...limits }),
    ]);
    creditor = callerFor(api.baseUrl, a);
    other = callerFor(api.baseUrl, b);
  });
  after(async () => {
    if (paused) signalGroup(worker, 'SIGCONT');
    [api, worker].forEach(killGroup);
    await Promise.all([api?.exited, worker?.exited]);
    await temporal?.teardown();
  });

  it('refuses the recalls with 503 while another tenant reads freely, and applies each once after SIGCONT', async () => {
    const debts: Debt[] = [];
    while (debts.length < RECALLS) {
      debts.push(...(await Promise.all(Array.from({ length: 10 }, () => raiseDebt(creditor)))));
    }
    await raiseDebt(other);

    signalGroup(worker, 'SIGSTOP');
    paused = true;
    const recall = (debt: Debt) =>
      timed(() =>
        creditor<Debt>(
          'PATCH',
          `/v1/debts/${debt.id}`,
          { status: 'Closed' },
          { 'idempotency-key': `recall-${debt.id}` },
        ),
      );

    // The other organisation reads all along, one request after another.
    let recalling = true;
    const reads: Timed<unknown>[] = [];
    const reading = (async () => {
      while (recalling) reads.push(await timed(() => other('GET', '/v1/debts?limit=10')));
    })();

    const refusedAtOnce: Timed<Debt>[] = [];
    const firstTries = debts.map(async (debt) => {
      const tried = await recall(debt);
      if (tried.answer.headers.get('retry-after')) refusedAtOnce.push(tried);
      return tried;
    });
    await waitFor(() => refusedAtOnce.length >= RECALLS - DEFAULT_TRIGGERS_IN_FLIGHT, {
      what: 'the recalls past the cap to be refused',
      timeoutMs: 8_000,
    });
    // The recalls in flight wait on the stopped worker holding no transaction: sampled all the while they wait, no API
    // connection ever sits in one for over a second (before, each waiting recall held its request's transaction for
    // the trigger's 10 s).
    let waiting = true;
    const first = Promise.all(firstTries).finally(() => (waiting = false));
    let longestHeld = 0;
    while (waiting) {
      const { rows } = await testDb().raw<{ rows: { count: string }[] }>(
        `select count(*) from pg_stat_activity
          where datname = current_database() and application_name = '${API_NAME}'
            and state like 'idle in transaction%' and now() - xact_start > interval '1 second'`,
      );
      longestHeld = Math.max(longestHeld, Number(rows[0]!.count));
    }
    expect(longestHeld, 'API connections held in a transaction for over a second').to.equal(0);
    const answered = await first;
    recalling = false;
    await reading;
    for (const tried of answered) expect(tried.answer.status, tried.answer.text).to.equal(503);
    expect(refusedAtOnce.length).to.be.at.least(RECALLS - DEFAULT_TRIGGERS_IN_FLIGHT);

    const latencies = reads.map((r) => r.ms);
    console.log(
      `      ${reads.length} reads by another tenant while ${RECALLS} recalls waited: p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(latencies, 99).toFixed(1)} ms; recalls refused at once: ${refusedAtOnce.length}, ` +
        `slowest of those ${Math.max(...refusedAtOnce.map((r) => r.ms)).toFixed(1)} ms`,
    );
    expect(reads.map((r) => r.answer.status).filter((s) => s !== 200)).to.deep.equal([]);
    expect(percentile(latencies, 99)).to.be.below(100);

    signalGroup(worker, 'SIGCONT');
    paused = false;
    // Each recall retried under its key until it is answered: the Retry-After pace, shortened for the test.
    const retried = await Promise.all(
      debts.map((debt) =>
        waitFor(
          async () => {
            const { answer } = await recall(debt);
            return answer.status === 503 ? undefined : answer;
          },
          { what: `the recall of ${debt.id} to be answered`, timeoutMs: 60_000, intervalMs: 250 },
        ),
      ),
    );
    for (const answer of retried) {
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.status).to.equal('Closed');
    }
    const updates = await testDb()('events')
      .whereRaw(`type = 'debt.updated' and data->'debt'->>'id' = any(?)`, [debts.map((d) => d.id)])
      .select<{ id: string; debt_id: string }[]>(testDb().raw(`id, data->'debt'->>'id' as debt_id`));
    const perDebt = new Map<string, number>();
    for (const u of updates) perDebt.set(u.debt_id, (perDebt.get(u.debt_id) ?? 0) + 1);
    expect(
      [...perDebt.values()].filter((n) => n !== 1),
      'debt.updated per recalled debt',
    ).to.deep.equal([]);
    expect(perDebt.size).to.equal(RECALLS);
  });
});
