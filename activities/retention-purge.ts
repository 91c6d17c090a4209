/**
 * The retention purge's activity: one pass of core/retention/purge.ts over the mode's data, logged (counts only) and
 * counted in `client_api_retention_purged_rows_total{mode,kind}`.
 */
import { Context } from '@temporalio/activity';
import { Counter, register, type Registry } from 'prom-client';
import type { Db } from '../core/platform/db';
import type { Logger } from '../core/platform/logger';
import type { Mode } from '../core/platform/mode';
import { PURGE_KINDS, purgeExpiredRows, type PurgeOptions, type PurgeReport } from '../core/retention/purge';

const METRIC = 'client_api_retention_purged_rows_total';

export interface RetentionPurgeActivityDeps extends Omit<PurgeOptions, 'onProgress'> {
  db: Db;
  mode: Mode;
  logger: Logger;
  /** prom-client's default registry unless given. */
  registry?: Registry;
}

/** One counter per registry, shared by the modes' activities of a process. */
function purgedCounter(registry: Registry): Counter<'mode' | 'kind'> {
  const existing = registry.getSingleMetric(METRIC) as Counter<'mode' | 'kind'> | undefined;
  return (
    existing ??
    new Counter({
      name: METRIC,
      help: 'Rows deleted by the retention purge (deliveries count without their attempts)',
      labelNames: ['mode', 'kind'],
      registers: [registry],
    })
  );
}

function heartbeat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // called outside a worker (tests, an operator's one-off run): nothing to heartbeat to
  }
}

export function createRetentionPurgeActivities(deps: RetentionPurgeActivityDeps) {
  const counter = purgedCounter(deps.registry ?? register);
  const { logger, registry: _registry, ...options } = deps;
  return {
    async purgeExpiredRows(): Promise<PurgeReport> {
      const report = await purgeExpiredRows({ ...options, onProgress: heartbeat });
      for (const kind of PURGE_KINDS) counter.inc({ mode: deps.mode, kind }, report.kinds[kind].purged);
      logger.info({ mode: deps.mode, ...report }, 'retention purge pass');
      return report;
    },
  };
}

export type RetentionPurgeActivities = ReturnType<typeof createRetentionPurgeActivities>;
