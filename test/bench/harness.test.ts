/**
 * Smoke test of the bench harness: `npm run bench` in quick mode (BENCH_QUICK=1: small data, 2 s per load) produces
 * well-formed JSON with every scenario, its bare ceiling, ratio and target, and each process's peak memory. No timing
 * is asserted: on a shared machine the figures mean nothing, and benchmarks print, tests assert.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { testEnv } from '../support/env';
import type { BenchReport } from './report';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

const EXPECTED_SCENARIOS = [
  'GET /v1/organization vs the same work',
  'GET /v1/organization vs a trivial Koa route (no target)',
  'GET /v1/organization, all cores vs one process',
  'GET /v1/debts?limit=50 at 1,000',
  'GET /v1/events?limit=50 at 1,000',
  'GET /v1/webhooks/deliveries?limit=50 at 1,000',
  'GET /v1/debts?limit=50 p99 growth',
  'GET /v1/events?limit=50 p99 growth',
  'GET /v1/webhooks/deliveries?limit=50 p99 growth',
  'GET /console (Overview) at 1,000 deliveries',
  'GET /console (Overview) growth',
  'GET /console/deliveries at 1,000',
  'GET /console/deliveries p99 growth',
  'GET /console/deliveries?status=Failed p99 growth',
  'GET /console/deliveries?eventType=plan.defaulted p99 growth',
  'GET /console/deliveries/{id} at 1,000 (a Failed delivery, 6 attempts)',
  'GET /portal/debt (verified session, branding from the cache)',
  'GET /portal/debt with Redis paused',
  'POST /v1/debts with Idempotency-Key',
  'POST /v1/debts/{id}/documents, 1 MiB files',
  'webhook deliveries',
  'lifecycle',
  'webhook reconciler',
];

describe('bench harness (quick mode)', function () {
  this.timeout(600_000);
  let report: BenchReport;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'));

  before(async () => {
    const output = path.join(dir, 'bench.json');
    await run(process.execPath, ['--import', 'tsx', 'test/bench/run.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        // This process's own databases (made ready by the root hook), not a slot of the bench's.
        TEST_DATABASE_URL: testEnv.databaseUrl,
        TEST_REDIS_URL: testEnv.redisUrl,
        BENCH_QUICK: '1',
        BENCH_ONLY: 'api,lists,console,portal,debts,documents,webhooks,lifecycle,reconcile',
        BENCH_OUTPUT: output,
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    report = JSON.parse(readFileSync(output, 'utf8')) as BenchReport;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('names every scenario of issues 13, 27 and 28', () => {
    expect(report.quick).to.equal(true);
    expect(report.errors).to.deep.equal([]);
    expect(report.scenarios).to.include.members(EXPECTED_SCENARIOS);
  });

  it('gives each comparison our figure, the ceiling measured in the same run, the ratio and a verdict per target', () => {
    expect(report.comparisons.length).to.be.at.least(10);
    for (const c of report.comparisons) {
      for (const side of [c.ours, c.ceiling]) {
        expect(side.label, c.scenario).to.be.a('string').and.not.equal('');
        expect(side.perSecond, `${c.scenario}: ${side.label}`).to.be.a('number').above(0);
      }
      expect(c.ours.p50Ms, c.scenario).to.be.a('number');
      expect(c.ours.p99Ms, c.scenario).to.be.a('number').at.least(c.ours.p50Ms);
      expect(c.ratio, c.scenario).to.be.closeTo(c.ours.perSecond / c.ceiling.perSecond, 1e-9);
      if (c.target !== undefined) expect(c.verdict, c.scenario).to.be.oneOf(['PASS', 'BELOW']);
    }
    const targeted = report.comparisons.filter((c) => c.target !== undefined).map((c) => c.target);
    // Issue 25: the organisation route against the same work and the lists against json_agg (0.85), the lists
    // against rows in Node (1.5), POST /v1/debts (0.8), documents (0.7), webhooks (0.9).
    expect(targeted).to.include.members([0.85, 1.5, 0.8, 0.7, 0.9]);
  });

  it('checks the p99 growth of each list and the webhook latencies against their bounds', () => {
    expect(report.checks.length).to.be.at.least(5);
    for (const c of report.checks) {
      expect(c.value, c.name).to.be.a('number').and.satisfy(Number.isFinite);
      expect(c.verdict, c.name).to.be.oneOf(['PASS', 'BELOW']);
    }
  });

  it("reports, without a target, the webhook latency while another tenant's burst arrives", () => {
    const burst = report.observations.find((o) => o.scenario === 'webhook deliveries' && /burst/.test(o.name));
    expect(burst, 'the burst figure').to.not.equal(undefined);
    expect(burst!.value).to.be.a('number').and.satisfy(Number.isFinite);
  });

  it('reports where the CPU went, by process, for both sides of every targeted comparison', () => {
    for (const c of report.comparisons.filter((comparison) => comparison.target !== undefined)) {
      for (const side of [c.ours, c.ceiling]) {
        const cpu = side.cpuUsPerItem ?? {};
        expect(Object.keys(cpu), `${c.scenario}: ${side.label}`).to.include('postgres');
        for (const [name, us] of Object.entries(cpu)) {
          expect(us, `${c.scenario}: ${side.label}: ${name}`).to.be.a('number').and.satisfy(Number.isFinite);
        }
      }
      // The process under test did the work: its own CPU per item is above zero.
      const underTest = c.ours.cpuUsPerItem?.api ?? c.ours.cpuUsPerItem?.temporal;
      expect(underTest, `${c.scenario}: the process under test`).to.be.above(0);
    }
  });

  it('times one pass of the webhook reconciler over its Pending backlog, against the activity timeout', () => {
    const pass = report.checks.find((c) => c.scenario === 'webhook reconciler');
    expect(pass, 'the pass figure').to.not.equal(undefined);
    expect(pass!.unit).to.equal('s');
    const lookedAt = report.observations.find((o) => o.scenario === 'webhook reconciler' && /looked at/.test(o.name));
    expect(lookedAt?.value, 'deliveries looked at: only the overdue ones').to.equal(2);
  });

  it("reports each process's peak memory: API (single and cluster), bare, Temporal, bench client", () => {
    const names = report.memory.map((m) => m.process).join('\n');
    const processes = ['api process (1 process)', 'api cluster worker', 'bare process', 'Temporal dev server'];
    for (const name of [...processes, 'webhooks worker process']) {
      expect(names).to.contain(name);
    }
    expect(names).to.match(/bench process/);
    for (const m of report.memory) expect(m.peakMiB, m.process).to.be.above(0);
  });
});
