/**
 * The soak's mix of work, as the platform's users make it: clients reading and writing with the keys of several
 * tenants (every raised debt has a debtor email, so it starts a lifecycle, a webhook delivery and a portal mail),
 * webhook test events, a sandbox tenant walking debts through acceptance, a plan and payments (the lifecycle
 * workflows' signals and timers), a debtor reading the portal and an admin reading the console.
 *
 * `measureMaximum` runs the mix closed-loop to find the rate the stack sustains; `runOpenLoop` then offers half of it
 * at a fixed rate (arrivals do not wait for answers, as real clients do not), recording every answer's latency.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { inlineDebtBody } from '../support/debt-api';
import type { SoakStack } from './soak-stack';

export interface Sample {
  /** Seconds since the load started. */
  at: number;
  route: string;
  ms: number;
  status: number;
}

interface Operation {
  route: string;
  weight: number;
  run(stack: SoakStack, turn: number): Promise<number>;
}

/** An answer's status (0 when the request failed outright); the body is read so the connection is reused. */
async function call(stack: SoakStack, url: string, init: RequestInit = {}): Promise<number> {
  try {
    const res = await stack.fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

function apiCall(stack: SoakStack, tenant: number, method: string, path: string, body?: unknown): Promise<number> {
  const key = stack.tenants.production[tenant % stack.tenants.production.length]!;
  return call(stack, `${stack.productionApi.baseUrl}${path}`, {
    method,
    headers: {
      ...key.headers,
      ...(body !== undefined && { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

/** Sandbox debts part-way through their walk: raised → accepted → on a plan → paid once (then they rest). */
const walking: { id: string; step: number }[] = [];
let sandboxTurns = 0;
/** A walk has three steps after the raise: one turn in four raises a new debt, so the walks overlap. */
const RAISE_EVERY = 4;
const MAX_WALKING = 200;

async function sandboxStep(stack: SoakStack): Promise<number> {
  const { sandbox } = stack.tenants;
  const post = async (path: string, body?: unknown) => {
    const res = await stack
      .fetch(`${stack.sandboxApi.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...sandbox.headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(body ?? {}),
        signal: AbortSignal.timeout(30_000),
      })
      .catch(() => undefined);
    if (!res) return { status: 0, id: undefined };
    const answer = (await res.json().catch(() => ({}))) as { id?: string };
    return { status: res.status, id: answer.id };
  };
  const raise = walking.length === 0 || (sandboxTurns++ % RAISE_EVERY === 0 && walking.length < MAX_WALKING);
  const debt = raise ? undefined : walking.shift();
  if (!debt) {
    const raised = await post('/v1/debts', inlineDebtBody({ originalPrincipal: 1000 }));
    if (raised.status === 201 && raised.id) walking.push({ id: raised.id, step: 0 });
    return raised.status;
  }
  const today = new Date().toISOString().slice(0, 10);
  const steps = [
    () => post(`/v1/sandbox/debts/${debt.id}/accept`),
    () => post(`/v1/sandbox/debts/${debt.id}/plan`, { instalmentCount: 4, frequency: 'Weekly', firstDueDate: today }),
    () => post(`/v1/sandbox/debts/${debt.id}/payments`, { amount: 250 }),
  ];
  const answer = await steps[debt.step]!();
  // A step refused because the debt's workflow has not started yet (409) is tried again on a later turn.
  if (answer.status === 200) debt.step++;
  if (debt.step < steps.length) walking.push(debt);
  return answer.status;
}

/** The mix, by weight out of 100. */
export const OPERATIONS: Operation[] = [
  { route: 'GET /v1/organization', weight: 24, run: (s, n) => apiCall(s, n, 'GET', '/v1/organization') },
  { route: 'GET /v1/debts', weight: 10, run: (s, n) => apiCall(s, n, 'GET', '/v1/debts?limit=50') },
  { route: 'GET /v1/events', weight: 8, run: (s, n) => apiCall(s, n, 'GET', '/v1/events?limit=50') },
  {
    route: 'GET /v1/webhooks/deliveries',
    weight: 5,
    run: (s, n) => apiCall(s, n, 'GET', '/v1/webhooks/deliveries?limit=50'),
  },
  { route: 'POST /v1/debts', weight: 15, run: (s, n) => apiCall(s, n, 'POST', '/v1/debts', inlineDebtBody()) },
  { route: 'POST /v1/webhooks/test', weight: 5, run: (s, n) => apiCall(s, n, 'POST', '/v1/webhooks/test', {}) },
  { route: 'sandbox walk (raise, accept, plan, pay)', weight: 10, run: (s) => sandboxStep(s) },
  {
    route: 'GET /portal/debt',
    weight: 11,
    run: (s) => call(s, `${s.productionApi.baseUrl}/portal/debt`, { headers: { cookie: s.tenants.portal.cookie } }),
  },
  {
    route: 'GET /console (Overview)',
    weight: 6,
    run: (s) => call(s, `${s.productionApi.baseUrl}/console`, { headers: { cookie: s.tenants.console.cookie } }),
  },
  {
    route: 'GET /console/deliveries',
    weight: 6,
    run: (s) =>
      call(s, `${s.productionApi.baseUrl}/console/deliveries`, { headers: { cookie: s.tenants.console.cookie } }),
  },
];

/** The operation of turn `n`: a fixed interleaving by weight, so every slice of the run has the same mix. */
const SCHEDULE: Operation[] = (() => {
  const slots: { op: Operation; at: number }[] = [];
  for (const op of OPERATIONS) {
    for (let i = 0; i < op.weight; i++) slots.push({ op, at: (i + 0.5) / op.weight });
  }
  return slots.sort((a, b) => a.at - b.at).map((s) => s.op);
})();

async function timed(stack: SoakStack, turn: number, started: number, samples: Sample[]): Promise<void> {
  const op = SCHEDULE[turn % SCHEDULE.length]!;
  const begun = performance.now();
  const status = await op.run(stack, turn);
  samples.push({ at: (Date.now() - started) / 1000, route: op.route, ms: performance.now() - begun, status });
}

/** The mix closed-loop from `clients` callers for `seconds`: the operations answered, and how many a second. */
export async function measureMaximum(
  stack: SoakStack,
  seconds: number,
  clients = 16,
): Promise<{ operations: number; perSecond: number }> {
  const samples: Sample[] = [];
  const started = Date.now();
  let turn = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() - started < seconds * 1000) await timed(stack, turn++, started, samples);
    }),
  );
  return { operations: samples.length, perSecond: samples.length / ((Date.now() - started) / 1000) };
}

export interface OpenLoop {
  samples: Sample[];
  /** Arrivals not sent because `maxInFlight` answers were outstanding (the stack could not keep up). */
  shed: number;
  /** Stops the arrivals and waits for every outstanding answer. */
  stop(): Promise<void>;
}

/** Offers `rate` operations a second in 100 ms ticks until stopped. */
export function runOpenLoop(stack: SoakStack, rate: number, maxInFlight = 256): OpenLoop {
  const samples: Sample[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  let stopping = false;
  let shed = 0;
  let turn = 0;
  const arrivals = (async () => {
    for (let tick = 1; !stopping; tick++) {
      const due = Math.floor((rate * tick) / 10) - Math.floor((rate * (tick - 1)) / 10);
      for (let i = 0; i < due; i++) {
        if (inFlight.size >= maxInFlight) {
          shed++;
          continue;
        }
        const p: Promise<void> = timed(stack, turn++, started, samples).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await pause(Math.max(0, started + tick * 100 - Date.now()));
    }
  })();
  return {
    samples,
    get shed() {
      return shed;
    },
    async stop() {
      stopping = true;
      await arrivals;
      await Promise.all([...inFlight]);
    },
  };
}
