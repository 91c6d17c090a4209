/**
 * `POST /v1/debts` with a fresh Idempotency-Key per request (so every request really writes: debtor, debt, its
 * outbox event, the idempotency record) against the bare route doing the same work from the libraries alone
 * (bare-debts.ts: the key and rate limit, the claim, the same rows, the sealed saved response, the request line).
 * Target: ≥ 0.8×. Then the same comparison with the lifecycle worker running (its relay starts every new
 * debt's workflow on a Temporal dev server), reported without a target. The tenant is new each run and removed
 * afterwards (organisations cascade).
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { compare, figure } from './report';
import type { Db } from '../../core/platform/db';
import type { BenchContext } from './context';
import { ensureCursor } from '../../core/events/cursor';
import { DEBT_LIFECYCLE_CONSUMER } from '../../core/lifecycle/lifecycle-consumer';
import { DEBTOR_NOTIFICATIONS_CONSUMER } from '../../core/notifications/notifications-consumer';
import { killGroup } from '../support/processes';
import { startLifecycleWorker, type ServiceProcess } from '../support/service-processes';
import { startDevServer } from '../support/temporal';
import { sharedProcesses, type ProcessSet } from './cpu';
import { benchTenant, childPids, interleaved, load, pidsWhere } from './support';

/** One request per call, with its own key and account: the same body for ours and the bare route. */
export function creating(headers: Record<string, string>): autocannon.Request[] {
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const key = randomUUID();
        request.headers = { ...headers, 'content-type': 'application/json', 'idempotency-key': key };
        request.body = JSON.stringify({
          debtorReferenceId: `BENCH-POST-${key.slice(0, 8)}`,
          debtorFirstName: 'Bench',
          debtorLastName: 'Poster',
          debtorEmail: 'bench.poster@example.com',
          originalPrincipal: 1250.5,
          currency: 'AUD',
          externalAccountId: `ACCT-${key}`,
        });
        return request;
      },
    },
  ];
}

/**
 * The PostgreSQL backends serving the bench database, other than the bench's own: the API's or the bare route's
 * connections. `postgres` counts every PostgreSQL process, which on a shared server includes other people's work;
 * these are the statements' own cost (the server's background writers are not in it).
 */
async function databaseBackends(db: Db): Promise<number[]> {
  const { rows } = await db.raw<{ rows: { pid: number }[] }>(
    `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
        and backend_type = 'client backend'`,
  );
  return rows.map((row) => row.pid);
}

const WITH_WORKER = 'POST /v1/debts with Idempotency-Key, lifecycle worker running (no target)';

/** Moves the worker's outbox consumers past everything committed so far: earlier runs' events are not this load's. */
async function skipOutboxBacklog(db: Db): Promise<void> {
  for (const name of [DEBT_LIFECYCLE_CONSUMER, DEBTOR_NOTIFICATIONS_CONSUMER]) {
    await ensureCursor(db, { name, startAt: 'now' }, 'production');
    await db.raw(
      `update outbox_cursors set txid = greatest(txid, pg_snapshot_xmin(pg_current_snapshot())), seq = 0
        where consumer = ? and mode = 'production'`,
      [name],
    );
  }
}

/** Pids of a process group: the worker runs under tsx, in a child of its own. */
function groupPids(group: number): number[] {
  return pidsWhere((_pid, stat) => stat.group === group);
}

/** Runs `work` with a Temporal dev server and the real lifecycle worker process on the bench database. */
async function withLifecycleWorker(ctx: BenchContext, work: (processes: ProcessSet) => Promise<void>): Promise<void> {
  const temporal = await startDevServer({ persisted: true });
  let worker: ServiceProcess | undefined;
  try {
    await skipOutboxBacklog(ctx.db);
    worker = await startLifecycleWorker({
      TEMPORAL_ADDRESS: temporal.address,
      REDIS_URL: ctx.redisUrl,
      WORKER_MODES: 'production',
      PRODUCTION_DATABASE_URL: ctx.databaseUrl,
      METRICS_PORT: '0',
    });
    const group = worker.child.pid!;
    await work({ 'lifecycle worker': () => groupPids(group), temporal: () => childPids('start-dev') });
  } finally {
    killGroup(worker);
    await worker?.exited;
    await temporal.teardown();
  }
}

export async function benchDebtCreation(ctx: BenchContext): Promise<void> {
  const { api, bare, db, duration, warmUp } = ctx;
  const tenant = await benchTenant(db, 'Bench POST');
  try {
    // Listed before each load (after the warm-ups, each side's pool holds its connections).
    const backends = async () => {
      const pids = await databaseBackends(db);
      return { 'postgres, own backends': () => pids };
    };
    const ours = async (label: string, seconds = duration) =>
      load(label, {
        url: `${api.baseUrl}/v1/debts`,
        duration: seconds,
        requests: creating({ authorization: tenant.authorization }),
        cpu: { api: () => [api.pid], ...sharedProcesses(), ...(await backends()) },
      });
    const bareRoute = async (label: string, seconds = duration) =>
      load(label, {
        url: `${bare.baseUrl}/debts`,
        duration: seconds,
        requests: creating({ authorization: tenant.authorization }),
        cpu: { bare: () => [bare.pid], ...sharedProcesses(), ...(await backends()) },
      });
    console.log('\nPOST /v1/debts with Idempotency-Key');
    await ours('warm-up', warmUp);
    await bareRoute('bare warm-up', warmUp); // the same warm-up as ours: connections, JIT
    // Interleaved: every insert-heavy load grows the tables and the WAL, and a checkpoint lands on whichever load
    // runs when it comes; run back to back, the two figures swung between 0.4× and 1.9× from run to run.
    const { created, bareCreated } = await interleaved(
      {
        created: (seconds) => ours('ours: POST /v1/debts, a fresh Idempotency-Key each', seconds),
        bareCreated: (seconds) => bareRoute('bare: the same work from the libraries alone', seconds),
      },
      duration,
    );
    compare(ctx.report, 'POST /v1/debts with Idempotency-Key', figure(created), figure(bareCreated), 0.8);
    // The same with the lifecycle worker running (reported, no target): its relay starts each new
    // debt's workflow (both sides' debts) on a Temporal dev server, which share the machine with both.
    await withLifecycleWorker(ctx, async (worker) => {
      const both = await interleaved(
        {
          ours: async (seconds) =>
            load('ours, lifecycle worker running', {
              url: `${api.baseUrl}/v1/debts`,
              duration: seconds,
              requests: creating({ authorization: tenant.authorization }),
              cpu: { api: () => [api.pid], ...sharedProcesses(), ...(await backends()), ...worker },
            }),
          bare: async (seconds) =>
            load('bare, lifecycle worker running', {
              url: `${bare.baseUrl}/debts`,
              duration: seconds,
              requests: creating({ authorization: tenant.authorization }),
              cpu: { bare: () => [bare.pid], ...sharedProcesses(), ...(await backends()), ...worker },
            }),
        },
        duration,
      );
      compare(ctx.report, WITH_WORKER, figure(both.ours), figure(both.bare));
    });
  } finally {
    await db('organizations').where({ id: tenant.organizationId }).delete();
  }
}
