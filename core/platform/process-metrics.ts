/**
 * Metrics shared by the modes (and the activities) of one process: each is created once per registry and found again
 * by name, so building a mode's activities twice, or in a test with its own registry, never registers a name twice.
 * Workers use prom-client's default registry (core/temporal/worker-process.ts serves it); tests pass their own.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export function counterOnce<L extends string>(
  registry: Registry,
  config: { name: string; help: string; labelNames: readonly L[] },
): Counter<L> {
  const existing = registry.getSingleMetric(config.name) as Counter<L> | undefined;
  return existing ?? new Counter({ ...config, registers: [registry] });
}

export function histogramOnce<L extends string>(
  registry: Registry,
  config: { name: string; help: string; labelNames: readonly L[]; buckets: number[] },
): Histogram<L> {
  const existing = registry.getSingleMetric(config.name) as Histogram<L> | undefined;
  return existing ?? new Histogram({ ...config, registers: [registry] });
}

export function gaugeOnce<L extends string>(
  registry: Registry,
  config: { name: string; help: string; labelNames: readonly L[]; collect?: (this: Gauge<L>) => Promise<void> },
): Gauge<L> {
  const existing = registry.getSingleMetric(config.name) as Gauge<L> | undefined;
  return existing ?? new Gauge({ ...config, registers: [registry] });
}
