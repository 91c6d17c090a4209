/**
 * What one `npm run bench` produces: for each scenario our figure against the bare ceiling measured in the same run,
 * the ratio and its target (PASS/BELOW, printed, never asserted), latency percentiles, and each process's peak memory;
 * printed as tables and written as JSON (bench-results/latest.json and a timestamped copy; BENCH_OUTPUT overrides).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LoadResult } from './support';

export interface Figure {
  label: string;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx?: number;
  errors?: number;
  /** µs of CPU (user + system) per request or delivery, by process (cpu.ts). */
  cpuUsPerItem?: Record<string, number>;
}

export interface Comparison {
  scenario: string;
  ours: Figure;
  ceiling: Figure;
  /** ours.perSecond / ceiling.perSecond */
  ratio: number;
  /** The target for the ratio (at least), when it sets one. */
  target?: number;
  verdict?: 'PASS' | 'BELOW';
}

/** Any other target: a value with a bound (e.g. p99 at 1,000,000 rows over p99 at 1,000: at most 1.10). */
export interface Check {
  scenario: string;
  name: string;
  value: number;
  unit: string;
  bound: { atMost?: number; atLeast?: number };
  verdict: 'PASS' | 'BELOW';
}

export interface Observation {
  scenario: string;
  name: string;
  value: number;
  unit: string;
}

export interface PeakMemory {
  process: string;
  pid: number;
  peakMiB: number;
}

export interface BenchReport {
  startedAt: string;
  finishedAt?: string;
  quick: boolean;
  secondsPerLoad: number;
  connections: number;
  machine: { cpus: number; model: string; memoryGiB: number; node: string; loadAverage: number[] };
  scenarios: string[];
  comparisons: Comparison[];
  checks: Check[];
  /** Figures reported without a target (what an operator should know, not what the issue bounds). */
  observations: Observation[];
  memory: PeakMemory[];
  /** Scenarios that failed to run (the others are still reported). */
  errors: string[];
}

export function figure(result: LoadResult): Figure {
  const { name, requestsPerSecond, p50, p99, non2xx, errors, cpuUsPerRequest } = result;
  return {
    label: name,
    perSecond: requestsPerSecond,
    p50Ms: p50,
    p99Ms: p99,
    non2xx,
    errors,
    cpuUsPerItem: cpuUsPerRequest,
  };
}

export function newReport(options: { quick: boolean; secondsPerLoad: number; connections: number }): BenchReport {
  return {
    startedAt: new Date().toISOString(),
    ...options,
    machine: {
      cpus: os.availableParallelism(),
      model: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      loadAverage: os.loadavg(),
    },
    scenarios: [],
    comparisons: [],
    checks: [],
    observations: [],
    memory: [],
    errors: [],
  };
}

/** The report's list of scenarios, each named once, in the order they first reported. */
function nameScenario(report: BenchReport, scenario: string): void {
  if (!report.scenarios.includes(scenario)) report.scenarios.push(scenario);
}

export function compare(report: BenchReport, scenario: string, ours: Figure, ceiling: Figure, target?: number): void {
  const ratio = ours.perSecond / ceiling.perSecond;
  const verdict = target === undefined ? undefined : ratio >= target ? 'PASS' : 'BELOW';
  report.comparisons.push({ scenario, ours, ceiling, ratio, target, verdict });
  nameScenario(report, scenario);
  const fmt = (f: Figure) =>
    `${f.perSecond.toFixed(1)}/s` +
    (Number.isFinite(f.p99Ms) ? ` p50 ${f.p50Ms.toFixed(1)} p99 ${f.p99Ms.toFixed(1)} ms` : ''); // a floor has none
  const goal = target === undefined ? '' : `  target ≥ ${target.toFixed(2)} ${verdict}`;
  console.log(`  ${ours.label}: ${fmt(ours)}`);
  console.log(`    vs ${ceiling.label}: ${fmt(ceiling)}  ratio ${ratio.toFixed(2)}×${goal}`);
}

/** `≤ 1.1`, `≥ 0.9`, or both (`0.9–1.1`: within 10 % either way). */
function boundText({ atMost, atLeast }: Check['bound']): string {
  if (atMost !== undefined && atLeast !== undefined) return `${atLeast}–${atMost}`;
  return atMost !== undefined ? `≤ ${atMost}` : `≥ ${atLeast}`;
}

export function check(report: BenchReport, c: Omit<Check, 'verdict'>): void {
  const { atMost, atLeast } = c.bound;
  const ok = (atMost === undefined || c.value <= atMost) && (atLeast === undefined || c.value >= atLeast);
  report.checks.push({ ...c, verdict: ok ? 'PASS' : 'BELOW' });
  nameScenario(report, c.scenario);
  console.log(`  ${c.name}: ${c.value.toFixed(2)} ${c.unit}  target ${boundText(c.bound)} ${ok ? 'PASS' : 'BELOW'}`);
}

export function observe(report: BenchReport, o: Observation): void {
  report.observations.push(o);
  nameScenario(report, o.scenario);
  console.log(`  ${o.name}: ${o.value.toFixed(2)} ${o.unit}  (reported, no target)`);
}

export function recordMemory(report: BenchReport, processName: string, pid: number, peakMiB: number): void {
  report.memory.push({ process: processName, pid, peakMiB });
}

/** Each figure's CPU per request or delivery by process, once per figure (a figure may be in several comparisons). */
function printCpu(report: BenchReport): void {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const c of report.comparisons) {
    for (const side of [c.ours, c.ceiling]) {
      const key = `${c.scenario}|${side.label}`;
      if (!side.cpuUsPerItem || seen.has(key)) continue;
      seen.add(key);
      const shares = Object.entries(side.cpuUsPerItem).map(([name, us]) => `${name} ${us.toFixed(0)}`);
      lines.push(`| ${c.scenario} | ${side.label} | ${shares.join(' · ')} |`);
    }
  }
  if (lines.length === 0) return;
  console.log('\nCPU per request or delivery (µs of user + system time, by process):\n');
  console.log('| scenario | figure | µs per item |\n|---|---|---|');
  for (const line of lines) console.log(line);
}

/** The summary table (also what docs/operators/performance.md holds) and the JSON files; returns the JSON path. */
export function finish(report: BenchReport, root: string): string {
  report.finishedAt = new Date().toISOString();
  console.log('\n| scenario | ours | bare ceiling | ratio | target | p50 / p99 ms (ours) |');
  console.log('|---|---|---|---|---|---|');
  for (const c of report.comparisons) {
    const target = c.target === undefined ? '' : `≥ ${c.target} ${c.verdict}`;
    console.log(
      `| ${c.scenario} | ${c.ours.label}: ${c.ours.perSecond.toFixed(1)}/s | ${c.ceiling.label}: ` +
        `${c.ceiling.perSecond.toFixed(1)}/s | ${c.ratio.toFixed(2)}× | ${target} | ` +
        `${c.ours.p50Ms.toFixed(1)} / ${c.ours.p99Ms.toFixed(1)} |`,
    );
  }
  for (const c of report.checks) {
    console.log(
      `| ${c.scenario} | ${c.name}: ${c.value.toFixed(2)} ${c.unit} | | | ${boundText(c.bound)} ${c.verdict} | |`,
    );
  }
  for (const o of report.observations) {
    console.log(`| ${o.scenario} | ${o.name}: ${o.value.toFixed(2)} ${o.unit} | | | (reported) | |`);
  }
  printCpu(report);
  console.log('\npeak memory (VmHWM):');
  for (const m of report.memory)
    console.log(`  ${m.process.padEnd(44)} pid ${String(m.pid).padEnd(8)} ${m.peakMiB} MiB`);
  const file = process.env.BENCH_OUTPUT ?? path.join(root, 'bench-results', 'latest.json');
  mkdirSync(path.dirname(file), { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(file, json);
  if (!process.env.BENCH_OUTPUT) {
    writeFileSync(path.join(path.dirname(file), `${report.startedAt.replace(/[:.]/g, '-')}.json`), json);
  }
  console.log(`\nresults written to ${file}`);
  return file;
}
