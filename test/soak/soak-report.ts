/**
 * The soak's verdicts, from its own samples: each route's p99 in the last window against the first (≤ 1.2×), each
 * process's peak memory in the last window against its peak in the window after the warm-up (≤ 10 % growth), each lag in the last
 * window against the first (not growing: ≤ 1.2× or within 2 s), and the books (nothing lost). Printed, written as
 * JSON, and drawn as three SVG line charts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Books } from './soak-books';
import type { Sample } from './soak-load';
import { LAGS, type StateSample } from './soak-samples';
import { lineChart, type Series } from './svg-lines';

export interface SoakRun {
  minutes: number;
  windowSeconds: number;
  /** What the whole stack sustains: the probe's operations over the time until their work was done. */
  maximumPerSecond: number;
  /** What the API answered closed-loop, its downstream work not waited for. */
  apiMaximumPerSecond: number;
  ratePerSecond: number;
  shed: number;
  samples: Sample[];
  states: StateSample[];
  books: Books;
}

interface Verdict {
  what: string;
  first: number;
  last: number;
  ratio: number;
  target: string;
  pass: boolean;
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] ?? NaN;
}

function mean(values: number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

function verdicts(run: SoakRun): Verdict[] {
  const end = run.minutes * 60;
  const inFirst = (at: number) => at <= run.windowSeconds;
  const inLast = (at: number) => at > end - run.windowSeconds;
  const out: Verdict[] = [];
  for (const route of [...new Set(run.samples.map((s) => s.route))]) {
    const ms = (within: (at: number) => boolean) =>
      run.samples.filter((s) => s.route === route && within(s.at)).map((s) => s.ms);
    const first = p99(ms(inFirst));
    const last = p99(ms(inLast));
    out.push({ what: `p99 ${route}`, first, last, ratio: last / first, target: '≤ 1.2×', pass: last <= first * 1.2 });
  }
  // Memory after the warm-up: the processes' caches (the workflow caches, V8's heap sizing, the pools) fill for the
  // first minutes (the dev soak's API and webhooks worker climbed until minute 9, then stayed within 2 %), so the
  // window compared with the last is the one after the first third of the run; peak against peak, as a heap that
  // grows and is collected in a saw-tooth would make a peak against one sample read as growth.
  const warmUp = Math.max(run.windowSeconds, end / 3);
  const inAfterWarmUp = (at: number) => at > warmUp && at <= warmUp + run.windowSeconds;
  const peak = (name: string, within: (at: number) => boolean) =>
    Math.max(...run.states.filter((s) => within(s.at)).map((s) => s.rssMiB[name] ?? NaN));
  for (const name of Object.keys(run.states[0]?.rssMiB ?? {})) {
    const first = peak(name, inAfterWarmUp);
    const last = peak(name, inLast);
    out.push({ what: `RSS ${name}`, first, last, ratio: last / first, target: '≤ 1.1×', pass: last <= first * 1.1 });
  }
  for (const lag of LAGS) {
    const first = mean(run.states.filter((s) => inFirst(s.at)).map((s) => s.lagSeconds[lag] ?? 0));
    const last = mean(run.states.filter((s) => inLast(s.at)).map((s) => s.lagSeconds[lag] ?? 0));
    const pass = last <= Math.max(first * 1.2, first + 2);
    out.push({ what: `lag ${lag} (s)`, first, last, ratio: last / first, target: '≤ 1.2× or +2 s', pass });
  }
  return out;
}

/** Each route's p99 per minute, each process's RSS and each lag per sample. */
function charts(run: SoakRun): Record<string, string> {
  const minutes = Math.ceil(run.minutes);
  const latency: Series[] = [...new Set(run.samples.map((s) => s.route))].map((route) => ({
    name: route,
    points: Array.from({ length: minutes }, (_, m) => ({
      x: m + 1,
      y: p99(run.samples.filter((s) => s.route === route && s.at > m * 60 && s.at <= (m + 1) * 60).map((s) => s.ms)),
    })).filter((p) => Number.isFinite(p.y)),
  }));
  const names = Object.keys(run.states[0]?.rssMiB ?? {});
  const memory: Series[] = names.map((name) => ({
    name,
    points: run.states.map((s) => ({ x: s.at / 60, y: s.rssMiB[name] ?? 0 })),
  }));
  const lags: Series[] = LAGS.map((lag) => ({
    name: lag,
    points: run.states.map((s) => ({ x: s.at / 60, y: s.lagSeconds[lag] ?? 0 })),
  }));
  const at = `${run.ratePerSecond.toFixed(0)} operations/s for ${run.minutes} min`;
  return {
    'latency.svg': lineChart({
      title: `p99 latency per route, each minute (${at})`,
      xLabel: 'minute',
      yLabel: 'ms',
      series: latency,
    }),
    'memory.svg': lineChart({ title: 'Resident memory', xLabel: 'minute', yLabel: 'MiB', series: memory }),
    'lag.svg': lineChart({ title: 'Lag of each stage', xLabel: 'minute', yLabel: 's', series: lags }),
  };
}

/** Printed, and written to bench-results/ under `prefix` (`soak` for the dev stack, `soak-profile` for the profile). */
export function report(run: SoakRun, root: string, prefix = 'soak'): { pass: boolean } {
  const list = verdicts(run);
  const f = (n: number) => (Number.isFinite(n) ? (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2)) : '—');
  const answered = run.samples.length;
  // A 429 is a failure of the harness (its keys are limited far above its rate), not an answer to measure.
  const failed = (s: Sample) => s.status === 0 || s.status === 429 || s.status >= 500;
  const errors = run.samples.filter(failed).length;
  console.log(`\nsoak: ${run.minutes} min at ${run.ratePerSecond.toFixed(1)} operations/s`);
  console.log(
    `  maximum of the mix: ${run.maximumPerSecond.toFixed(1)}/s sustained with its work done ` +
      `(the API alone answered ${run.apiMaximumPerSecond.toFixed(1)}/s closed-loop); offered half of it`,
  );
  console.log(`  answered ${answered}, shed ${run.shed} (stack behind), failed, 429 or 5xx ${errors}`);
  const failures = new Map<string, number>();
  for (const s of run.samples.filter(failed)) {
    failures.set(
      `${s.route} → ${s.status || 'no answer'}`,
      (failures.get(`${s.route} → ${s.status || 'no answer'}`) ?? 0) + 1,
    );
  }
  for (const [what, n] of failures) console.log(`    ${n} × ${what}`);
  // Not failures, but worth seeing: a sandbox step refused until its debt's workflow starts (409), a redirect that
  // would mean a page's session was not accepted.
  const others = new Map<string, number>();
  for (const s of run.samples.filter((s) => s.status >= 300 && s.status < 500 && !failed(s))) {
    others.set(`${s.route} → ${s.status}`, (others.get(`${s.route} → ${s.status}`) ?? 0) + 1);
  }
  for (const [what, n] of others) console.log(`    (answered) ${n} × ${what}`);
  console.log(
    `  windows: first and last ${+(run.windowSeconds / 60).toFixed(2)} min; memory from the end of the first third\n`,
  );
  console.log('| measure | first window | last window | ratio | target | verdict |');
  console.log('|---|---|---|---|---|---|');
  for (const v of list) {
    console.log(
      `| ${v.what} | ${f(v.first)} | ${f(v.last)} | ${f(v.ratio)}× | ${v.target} | ${v.pass ? 'PASS' : 'BELOW'} |`,
    );
  }
  const b = run.books;
  console.log(
    `\nbooks after ${b.drainSeconds.toFixed(0)} s of drain: ${b.events} events, ${b.deliveriesSucceeded} delivered; ` +
      `${b.openDebts} open debts, ${b.runningWorkflows} workflows running; ` +
      `${b.productionDebts} production debts, ${b.portalMailsSent} portal mails sent`,
  );
  console.log(b.problems.length === 0 ? '  nothing lost: PASS' : `  LOST: ${b.problems.join('; ')}`);
  const dir = path.join(root, 'bench-results');
  mkdirSync(dir, { recursive: true });
  for (const [file, svg] of Object.entries(charts(run))) writeFileSync(path.join(dir, `${prefix}-${file}`), svg);
  const { samples: _samples, ...kept } = run;
  writeFileSync(path.join(dir, `${prefix}-latest.json`), JSON.stringify({ ...kept, verdicts: list }, null, 2));
  console.log(`\ncharts and figures: ${dir}/${prefix}-{latency,memory,lag}.svg, ${prefix}-latest.json`);
  return { pass: b.problems.length === 0 && errors === 0 && list.every((v) => v.pass) };
}
