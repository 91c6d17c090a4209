/**
 * Kill -9, under load, loses nothing. A stack of its own (PostgreSQL, Redis and a Temporal dev
 * server on a file, the API, the webhooks worker and the lifecycle worker as `npm start` runs them, a real receiver)
 * takes a steady load of creates, recalls, simulated acceptances and payments from a sandbox tenant, each request
 * under an Idempotency-Key and retried with it until answered, as a careful client does. Meanwhile each process is
 * SIGKILLed and restarted, one after another: the API, each worker, the Temporal dev server (on the same database),
 * PostgreSQL and Redis. Then the load drains and the books are checked:
 * - every acknowledged debt exists once, and its workflow is running or finished;
 * - every acknowledged payment is recorded once;
 * - every event has one delivery, Succeeded (the receiver has it) or Failed with its attempts recorded;
 * - no Idempotency-Key is left pending, and every acknowledged one replays.
 * Used by test/integration/chaos.test.ts (one round, in CI) and `npm run chaos` (several rounds).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { workflowIds } from '../../core/temporal/names';
import { callerFor, inlineDebtBody, type Caller, type Debt } from '../support/debt-api';
import { createTenantIn } from '../support/fault-fixtures';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { createOwnTemporal, type OwnTemporal } from '../support/own-temporal';
import { killGroup } from '../support/processes';
import {
  startApi,
  startLifecycleWorker,
  startWebhooksWorker,
  type ApiProcess,
  type ServiceProcess,
} from '../support/service-processes';
import { DEV_SERVER_NAMESPACES } from '../support/temporal';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { localWebhookConfig, localWebhookEnv } from '../support/webhooks';

const NAMESPACE = DEV_SERVER_NAMESPACES[1]; // the sandbox's: the simulations are sandbox routes
const CLIENTS = 4;
/** How long one request may take before the client gives up on it and retries under its key. */
const REQUEST_TIMEOUT_MS = 15_000;

export type Victim = 'api' | 'webhooks worker' | 'lifecycle worker' | 'temporal' | 'postgres' | 'redis';
export const VICTIMS: Victim[] = ['api', 'webhooks worker', 'lifecycle worker', 'temporal', 'postgres', 'redis'];

export interface ChaosOptions {
  /** Each round kills every victim once, in order. */
  rounds: number;
  /** How many requests must be acknowledged between two kills (the stack has recovered). */
  progressBetweenKills: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  kills: number;
  requests: number;
  retries: number;
  acknowledged: { creates: number; recalls: number; accepts: number; payments: number };
  debts: number;
  workflows: { running: number; completed: number };
  events: number;
  deliveries: { succeeded: number; failed: number; duplicatesReceived: number };
  /** Everything that broke a rule; empty when nothing was lost or doubled. */
  problems: string[];
}

interface Op {
  kind: 'create' | 'recall' | 'accept' | 'payment';
  key: string;
  method: string;
  path: string;
  body?: unknown;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const webhooks = localWebhookConfig();
  const [pg, redis, temporal, receiver] = await Promise.all([
    startOwnPostgres({ durableCommits: true }),
    startOwnRedis(),
    createOwnTemporal(),
    startWebhookReceiver(),
  ]);
  const stack = new Stack(pg, redis, temporal, webhooks);
  try {
    await temporal.start();
    await stack.startAll();
    const tenant = await createTenantIn(pg.db, { webhooks, url: receiver.url }, 'sandbox');
    const load = new Load(() => callerFor(stack.api.baseUrl, tenant));
    const running = load.run();

    let kills = 0;
    for (let round = 1; round <= options.rounds; round++) {
      for (const victim of VICTIMS) {
        const before = load.acknowledgedCount();
        await waitFor(() => load.acknowledgedCount() >= before + options.progressBetweenKills, {
          what: `${options.progressBetweenKills} acknowledged requests before killing the ${victim}`,
          timeoutMs: 120_000,
          intervalMs: 100,
        });
        log(`round ${round}: SIGKILL ${victim} (${load.acknowledgedCount()} acknowledged so far)`);
        await stack.kill(victim);
        await stack.restart(victim);
        kills++;
      }
    }
    const before = load.acknowledgedCount();
    await waitFor(() => load.acknowledgedCount() >= before + options.progressBetweenKills, {
      what: 'the load to make progress after the last restart',
      timeoutMs: 120_000,
      intervalMs: 100,
    });
    load.stop();
    await running;
    log(`load drained: ${load.requests} requests (${load.retries} retries)`);
    return await checkBooks({ pg, temporal, receiver, load, organizationId: tenant.organization.id, kills });
  } finally {
    await stack.stopAll();
    await Promise.allSettled([pg.destroy(), redis.destroy(), temporal.destroy(), receiver.close()]);
  }
}

/** The three processes under test, restartable with the same environment. */
class Stack {
  api!: ApiProcess;
  private webhooksWorker!: ServiceProcess;
  private lifecycleWorker!: ServiceProcess;
  private apiPort = '';

  constructor(
    private readonly pg: OwnPostgres,
    private readonly redis: OwnRedis,
    private readonly temporal: OwnTemporal,
    private readonly webhooks: ReturnType<typeof localWebhookConfig>,
  ) {}

  private shared(): Record<string, string> {
    return { TEMPORAL_ADDRESS: this.temporal.address, REDIS_URL: this.redis.url, ...localWebhookEnv(this.webhooks) };
  }

  private workerEnv(): Record<string, string> {
    return {
      ...this.shared(),
      WORKER_MODES: 'sandbox',
      SANDBOX_DATABASE_URL: this.pg.databaseUrl,
      SANDBOX_TEMPORAL_NAMESPACE: NAMESPACE,
    };
  }

  private async startApi(): Promise<void> {
    this.api = await startApi({
      ...this.shared(),
      API_MODE: 'sandbox',
      DATABASE_URL: this.pg.databaseUrl,
      TEMPORAL_NAMESPACE: NAMESPACE,
      LOG_LEVEL: 'warn',
      ...(this.apiPort ? { PORT: this.apiPort } : {}),
    });
    this.apiPort = new URL(this.api.baseUrl).port;
  }

  async startAll(): Promise<void> {
    await this.startApi();
    [this.webhooksWorker, this.lifecycleWorker] = await Promise.all([
      startWebhooksWorker({ ...this.workerEnv(), LOG_LEVEL: 'info' }),
      startLifecycleWorker({ ...this.workerEnv(), LOG_LEVEL: 'info' }),
    ]);
  }

  async kill(victim: Victim): Promise<void> {
    const proc = { api: this.api, 'webhooks worker': this.webhooksWorker, 'lifecycle worker': this.lifecycleWorker };
    if (victim in proc) {
      const target = proc[victim as keyof typeof proc];
      killGroup(target); // SIGKILL to the process group
      await target.exited;
    } else if (victim === 'temporal') await this.temporal.kill();
    else if (victim === 'postgres') await this.pg.kill();
    else await this.redis.kill();
  }

  async restart(victim: Victim): Promise<void> {
    if (victim === 'api') await this.startApi();
    else if (victim === 'webhooks worker') this.webhooksWorker = await startWebhooksWorker(this.workerEnv());
    else if (victim === 'lifecycle worker') this.lifecycleWorker = await startLifecycleWorker(this.workerEnv());
    else if (victim === 'temporal') await this.temporal.start();
    else if (victim === 'postgres') await this.pg.start();
    else await this.redis.start();
  }

  async stopAll(): Promise<void> {
    const procs = [this.api, this.webhooksWorker, this.lifecycleWorker].filter(Boolean);
    procs.forEach(killGroup);
    await Promise.all(procs.map((p) => p.exited));
  }
}

/** Clients that send each request under its own key until it is answered, as the retry guidance says. */
class Load {
  requests = 0;
  retries = 0;
  readonly createdDebts: Debt[] = [];
  readonly acknowledged: { op: Op; status: number; body: unknown }[] = [];
  private stopping = false;

  constructor(private readonly caller: () => Caller) {}

  acknowledgedCount(): number {
    return this.acknowledged.length;
  }

  stop(): void {
    this.stopping = true;
  }

  async run(): Promise<void> {
    await Promise.all(Array.from({ length: CLIENTS }, (_, i) => this.client(i)));
  }

  private async client(index: number): Promise<void> {
    let n = 0;
    while (!this.stopping) {
      const op = this.nextOp(index, n++);
      await this.untilAnswered(op); // a request begun is always finished, even once the load is stopping
    }
  }

  private nextOp(client: number, n: number): Op {
    const key = `chaos-${client}-${n}-${randomUUID().slice(0, 8)}`;
    const debts = this.createdDebts;
    const pick = debts[(client * 7919 + n * 104729) % Math.max(1, debts.length)];
    const kind = !pick || n % 4 === 0 ? 'create' : (['accept', 'payment', 'recall'] as const)[n % 3]!;
    switch (kind) {
      case 'create':
        return { kind, key, method: 'POST', path: '/v1/debts', body: inlineDebtBody({ originalPrincipal: 100 }) };
      case 'accept':
        return { kind, key, method: 'POST', path: `/v1/sandbox/debts/${pick!.id}/accept` };
      case 'payment':
        return {
          kind,
          key,
          method: 'POST',
          path: `/v1/sandbox/debts/${pick!.id}/payments`,
          body: { amount: 1, status: 'Succeeded', processorReference: key },
        };
      case 'recall':
        return { kind, key, method: 'PATCH', path: `/v1/debts/${pick!.id}`, body: { status: 'Closed' } };
    }
  }

  /** Retries under the same key until a definite answer: a success or a business outcome (4xx but 429). */
  private async untilAnswered(op: Op): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        this.retries++;
        await pause(Math.min(2_000, 100 * 2 ** Math.min(attempt, 5)));
      }
      this.requests++;
      const answer = await Promise.race([
        this.caller()(op.method, op.path, op.body, { 'idempotency-key': op.key }).catch(() => undefined),
        pause(REQUEST_TIMEOUT_MS).then(() => undefined),
      ]);
      if (!answer || answer.status >= 500 || answer.status === 429 || answer.status === 401) continue;
      if (answer.status === 409 && (answer.body as { title?: string }).title === 'idempotency_in_progress') continue;
      this.acknowledged.push({ op, status: answer.status, body: answer.body });
      if (op.kind === 'create' && answer.status === 201) this.createdDebts.push(answer.body as Debt);
      return;
    }
  }
}

async function checkBooks(input: {
  pg: OwnPostgres;
  temporal: OwnTemporal;
  receiver: WebhookReceiver;
  load: Load;
  organizationId: string;
  kills: number;
}): Promise<ChaosReport> {
  const { pg, receiver, load, organizationId } = input;
  const problems: string[] = [];
  const db = pg.db;
  const count = (kind: Op['kind'], ok: (status: number) => boolean) =>
    load.acknowledged.filter((a) => a.op.kind === kind && ok(a.status)).length;

  // Every acknowledged debt exists once (one row per id, and no second row for its account).
  const created = load.createdDebts;
  const rows = await db('debts')
    .where({ organization_id: organizationId })
    .select<{ id: string; external_account_id: string }[]>('id', 'external_account_id');
  const byAccount = new Map<string, number>();
  for (const row of rows) byAccount.set(row.external_account_id, (byAccount.get(row.external_account_id) ?? 0) + 1);
  const ids = new Set(rows.map((r) => r.id));
  for (const debt of created) {
    if (!ids.has(debt.id)) problems.push(`acknowledged debt ${debt.id} is missing`);
    const account = String(debt.externalAccountId);
    if ((byAccount.get(account) ?? 0) !== 1) problems.push(`account ${account} has ${byAccount.get(account)} debts`);
  }

  // Each one's workflow is running or finished (the lifecycle consumer may still be catching up: wait for it).
  const connection = await Connection.connect({ address: input.temporal.address });
  const workflows = { running: 0, completed: 0 };
  try {
    const client = new Client({ connection, namespace: NAMESPACE });
    for (const debt of created) {
      const status = await waitFor(
        async () => {
          const described = await client.workflow
            .getHandle(workflowIds.debt(debt.id))
            .describe()
            .catch(() => undefined);
          return described?.status.name;
        },
        { what: `the workflow of ${debt.id}`, timeoutMs: 60_000, intervalMs: 250 },
      ).catch(() => 'MISSING');
      if (status === 'RUNNING') workflows.running++;
      else if (status === 'COMPLETED') workflows.completed++;
      else problems.push(`debt ${debt.id}: workflow ${status}`);
    }
  } finally {
    await connection.close();
  }

  // Every acknowledged payment is recorded once, under its reference.
  const paid = load.acknowledged.filter((a) => a.op.kind === 'payment' && a.status === 200).map((a) => a.op.key);
  if (paid.length > 0) {
    const recorded = await db('transactions')
      .whereIn('processor_reference', paid)
      .select<{ processor_reference: string }[]>('processor_reference');
    const times = new Map<string, number>();
    for (const r of recorded) times.set(r.processor_reference, (times.get(r.processor_reference) ?? 0) + 1);
    for (const key of paid) {
      if (times.get(key) !== 1) problems.push(`payment ${key} recorded ${times.get(key) ?? 0} times`);
    }
  }

  // Every event has one delivery, which ends Succeeded (received) or Failed with its attempts recorded.
  const events = await db('events').where({ organization_id: organizationId }).pluck<string[]>('id');
  const deliveries = { succeeded: 0, failed: 0, duplicatesReceived: 0 };
  await waitFor(
    async () => {
      const open = await db('webhook_deliveries')
        .whereIn('event_id', events)
        .whereNotIn('status', ['Succeeded', 'Failed'])
        .count<{ n: string }[]>({ n: '*' });
      return Number(open[0]?.n ?? 0) === 0;
    },
    { what: 'every delivery to end', timeoutMs: 120_000, intervalMs: 500 },
  ).catch(async () => {
    const open = await db('webhook_deliveries')
      .whereIn('event_id', events)
      .whereNotIn('status', ['Succeeded', 'Failed'])
      .select<{ id: string; status: string; attempt_count?: number }[]>('id', 'status');
    problems.push(`deliveries still open after 120 s: ${JSON.stringify(open)}`);
  });
  const rowsByEvent = await db('webhook_deliveries')
    .whereIn('event_id', events)
    .select<{ id: string; event_id: string; status: string }[]>('id', 'event_id', 'status');
  const perEvent = new Map<string, { id: string; status: string }[]>();
  for (const row of rowsByEvent) perEvent.set(row.event_id, [...(perEvent.get(row.event_id) ?? []), row]);
  for (const eventId of events) {
    const list = perEvent.get(eventId) ?? [];
    if (list.length !== 1) {
      problems.push(`event ${eventId} has ${list.length} deliveries`);
      continue;
    }
    const delivery = list[0]!;
    const received = receiver.requests.filter((r) => r.deliveryId === delivery.id).length;
    if (delivery.status === 'Succeeded') {
      deliveries.succeeded++;
      if (received === 0) problems.push(`delivery ${delivery.id} Succeeded but never received`);
      deliveries.duplicatesReceived += Math.max(0, received - 1);
    } else if (delivery.status === 'Failed') {
      deliveries.failed++;
      const attempts = await db('webhook_delivery_attempts').where({ delivery_id: delivery.id }).count({ n: '*' });
      if (Number(attempts[0]?.n ?? 0) === 0) problems.push(`delivery ${delivery.id} Failed with no attempts`);
    }
  }

  // No key is left pending, and every acknowledged one replays.
  const pending = await db('idempotency_keys')
    .where({ organization_id: organizationId })
    .whereNull('response_status')
    .pluck<string[]>('key');
  for (const key of pending) {
    const answered = load.acknowledged.find((a) => a.op.key === key);
    const what = answered ? `${answered.op.method} ${answered.op.path} answered ${answered.status}` : 'never answered';
    problems.push(`Idempotency-Key ${key} left pending (${what})`);
  }

  return {
    kills: input.kills,
    requests: load.requests,
    retries: load.retries,
    acknowledged: {
      creates: count('create', (s) => s === 201),
      recalls: count('recall', (s) => s === 200),
      accepts: count('accept', (s) => s === 200),
      payments: paid.length,
    },
    debts: rows.length,
    workflows,
    events: events.length,
    deliveries,
    problems,
  };
}
