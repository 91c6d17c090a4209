/**
 * The list routes (`GET /v1/debts`, `/v1/events`, `/v1/webhooks/deliveries`, a page of 50) against the bare routes
 * doing the same work on the plain driver — what every /v1 request does (the key found, the rate limit's script in
 * Redis, the request id, one log line: bare-api-routes.ts), then the same keyset SQL with (a) rows serialised in Node,
 * (b) JSON built by PostgreSQL — and, for information, (c) the PostgreSQL-built page alone, with no key, rate limit or
 * log line, which is what the list ceilings measured before the same-work rule. And each
 * filter of the debt list at the smallest and the largest tenant. Targets: ours at 100,000 rows
 * ≥ 1.5× (a) and ≥ 0.85× (b), and ours' p99 at 1,000,000 rows within 10% of its p99 at 1,000
 * (those two loads longer, P99_CHECK_ROUNDS).
 */
import { compare, check, figure } from './report';
import { listTenant, type ListKind } from './seed-lists';
import { interleaved, load, type BenchTenant } from './support';
import type { BenchContext } from './context';
import { sharedProcesses } from './cpu';

interface ListRoute {
  scenario: string;
  path: string;
  kind: ListKind;
  bare: string;
}

const ROUTES: ListRoute[] = [
  { scenario: 'GET /v1/debts?limit=50', path: '/v1/debts?limit=50', kind: 'debts', bare: 'debts' },
  { scenario: 'GET /v1/events?limit=50', path: '/v1/events?limit=50', kind: 'events', bare: 'events' },
  {
    scenario: 'GET /v1/webhooks/deliveries?limit=50',
    path: '/v1/webhooks/deliveries?limit=50',
    kind: 'events',
    bare: 'deliveries',
  },
];

/**
 * Each filter of `GET /v1/debts`, as a client uses it, on the seeded debts (seed-debts.ts: debt i
 * has `LOAN-<i>` and `{"crmId": "C-<i>"}`). Debt `n` (half the smallest tenant) exists in every tenant, so the exact
 * matches find one debt at any size, and the ranges a full page.
 */
interface DebtFilter {
  name: string;
  query: (db: BenchContext['db'], organizationId: string, n: number) => Promise<string>;
}

const DEBT_FILTERS: DebtFilter[] = [
  { name: 'status', query: () => Promise.resolve('status=Active') },
  {
    name: 'externalAccountId',
    query: async (db, org, n) => {
      const row = await db('debts')
        .where({ organization_id: org, client_reference: `LOAN-${n}` })
        .first<{ external_account_id: string }>('external_account_id');
      return `externalAccountId=${encodeURIComponent(row.external_account_id)}`;
    },
  },
  { name: 'clientReference', query: (_db, _org, n) => Promise.resolve(`clientReference=LOAN-${n}`) },
  {
    name: 'createdBefore',
    query: async (db, org) => {
      const row = await db('debts')
        .where({ organization_id: org })
        .max<{ newest: Date }>('created_at as newest')
        .first();
      return `createdBefore=${new Date(row!.newest.getTime() - 100_000).toISOString()}`;
    },
  },
  { name: 'metadata', query: (_db, _org, n) => Promise.resolve(`metadata%5BcrmId%5D=C-${n}`) },
];

/** The p99 check's loads run this many times the scenario's duration, in twice as many interleaved slices. */
const P99_CHECK_ROUNDS = 3;

export async function benchLists(ctx: BenchContext): Promise<void> {
  const { db, sizes } = ctx;
  console.log(
    `\nlist routes: seeding or finding tenants of ${sizes.map((n) => n.toLocaleString('en')).join(', ')} rows`,
  );
  const tenants = new Map<string, BenchTenant>();
  for (const kind of ['debts', 'events'] as const) {
    for (const rows of sizes) tenants.set(`${kind}:${rows}`, await listTenant(db, kind, rows));
  }
  try {
    for (const route of ROUTES) {
      const [small, large, huge] = sizes.map((rows) => tenants.get(`${route.kind}:${rows}`)!);
      await benchList(ctx, route, small!, large!, huge!);
    }
    const [small, , huge] = sizes.map((rows) => tenants.get(`debts:${rows}`)!);
    for (const filter of DEBT_FILTERS) await benchFilteredDebts(ctx, filter, small!, huge!);
  } finally {
    // Quick mode runs on the test database (the smoke test): leave nothing for the outbox consumers of other tests.
    const ids = [...tenants.values()].map((t) => t.organizationId);
    if (ctx.quick) await db('organizations').whereIn('id', ids).delete();
  }
}

async function benchList(
  ctx: BenchContext,
  route: ListRoute,
  small: BenchTenant,
  large: BenchTenant,
  huge: BenchTenant,
): Promise<void> {
  const { api, bare, duration, sizes } = ctx;
  const [nSmall, nLarge, nHuge] = sizes.map((n) => n.toLocaleString('en'));
  const ours = (tenant: BenchTenant, label: string) => (seconds: number) =>
    load(label, {
      url: `${api.baseUrl}${route.path}`,
      headers: { authorization: tenant.authorization },
      duration: seconds,
      cpu: { api: () => [api.pid], ...sharedProcesses() },
    });
  // The ceilings do what every /v1 request does (key, rate limit, request id, log line) under the same tenant's key.
  const bareList = (how: 'node' | 'pg' | 'page-only', label: string) => (seconds: number) =>
    load(label, {
      url: `${bare.baseUrl}/${route.bare}/${how}${how === 'page-only' ? `?org=${large.organizationId}` : ''}`,
      headers: { authorization: large.authorization },
      duration: seconds,
      cpu: { bare: () => [bare.pid], ...sharedProcesses() },
    });

  console.log(`\n${route.scenario}`);
  await ours(large, 'warm-up')(ctx.warmUp);
  await bareList('node', 'warm-up')(ctx.warmUp);
  await bareList('pg', 'warm-up')(ctx.warmUp);
  // Interleaved (support.ts): each ratio compares loads measured side by side, not a minute apart.
  const { atLarge, inNode, inPostgres, pageOnly } = await interleaved(
    {
      atLarge: ours(large, `ours at ${nLarge}`),
      inNode: bareList('node', `bare, key checks + same SQL, rows serialised in Node, at ${nLarge}`),
      inPostgres: bareList('pg', `bare, key checks + JSON built by PostgreSQL (json_agg), at ${nLarge}`),
      pageOnly: bareList(
        'page-only',
        `bare, the PostgreSQL-built page alone (no key, rate limit or log), at ${nLarge}`,
      ),
    },
    duration,
  );
  // The p99 check's pair runs longer, in more rounds: a p99 of a few tens of milliseconds moves by a third when a
  // checkpoint lands in a slice, and over 3 slices of 3 s that alone decided the check (docs/operators/performance.md).
  const { atSmall, atHuge } = await interleaved(
    { atSmall: ours(small, `ours at ${nSmall}`), atHuge: ours(huge, `ours at ${nHuge}`) },
    P99_CHECK_ROUNDS * duration,
    2 * P99_CHECK_ROUNDS,
    true, // alternating: neither tenant's load always runs second (console.bench.ts's p99 checks)
  );

  const scenario = `${route.scenario} at ${nLarge}`;
  compare(ctx.report, scenario, figure(atLarge), figure(inNode), 1.5);
  compare(ctx.report, scenario, figure(atLarge), figure(inPostgres), 0.85);
  compare(ctx.report, scenario, figure(atLarge), figure(pageOnly)); // the earlier, softer-on-ours ceiling: no target
  compare(ctx.report, `${route.scenario} at ${nSmall} (for the p99 check)`, figure(atSmall), figure(inNode));
  compare(ctx.report, `${route.scenario} at ${nHuge} (for the p99 check)`, figure(atHuge), figure(inNode));
  check(ctx.report, {
    scenario: `${route.scenario} p99 growth`,
    name: `p99 at ${nHuge} / p99 at ${nSmall}`,
    value: atHuge.p99 / atSmall.p99,
    unit: '×',
    bound: { atMost: 1.1 },
  });
}

/** A filtered debt list stays flat from the smallest tenant to the largest: its p99 at both, interleaved. */
async function benchFilteredDebts(
  ctx: BenchContext,
  filter: DebtFilter,
  small: BenchTenant,
  huge: BenchTenant,
): Promise<void> {
  const { api, duration, sizes } = ctx;
  const [nSmall, , nHuge] = sizes.map((n) => n.toLocaleString('en'));
  const scenario = `GET /v1/debts?limit=50 filtered by ${filter.name}`;
  const ours = async (tenant: BenchTenant, label: string) => {
    const n = Math.ceil(sizes[0] / 2);
    const url = `${api.baseUrl}/v1/debts?limit=50&${await filter.query(ctx.db, tenant.organizationId, n)}`;
    return (seconds: number) =>
      load(label, {
        url,
        headers: { authorization: tenant.authorization },
        duration: seconds,
        cpu: { api: () => [api.pid], ...sharedProcesses() },
      });
  };
  console.log(`\n${scenario}`);
  const [atSmallLoad, atHugeLoad] = [await ours(small, `ours at ${nSmall}`), await ours(huge, `ours at ${nHuge}`)];
  await atHugeLoad(ctx.warmUp);
  // Quick mode (the smoke test) checks that each filter runs, in one round; its figures mean nothing anyway.
  const rounds = ctx.quick ? 1 : P99_CHECK_ROUNDS;
  const { atSmall, atHuge } = await interleaved(
    { atSmall: atSmallLoad, atHuge: atHugeLoad },
    rounds * duration,
    2 * rounds,
    true,
  );
  // Throughput at the largest against the smallest: the same request, so a flat list is about 1×.
  compare(ctx.report, `${scenario} at ${nHuge} vs ${nSmall}`, figure(atHuge), figure(atSmall));
  check(ctx.report, {
    scenario: `${scenario} p99 growth`,
    name: `p99 at ${nHuge} / p99 at ${nSmall}`,
    value: atHuge.p99 / atSmall.p99,
    unit: '×',
    bound: { atMost: 1.1 },
  });
}
