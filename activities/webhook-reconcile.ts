/**
 * The reconciler's activity: one pass of core/webhooks/reconcile.ts over the mode's overdue deliveries (bounded in
 * time, resumed by the next pass), with what it fixed logged (one line per delivery, ids only) and counted in
 * `client_api_webhook_deliveries_reconciled_total`.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { Counter, register, type Registry } from 'prom-client';
import type { Db } from '../core/platform/db';
import type { Logger } from '../core/platform/logger';
import type { Mode } from '../core/platform/mode';
import { reconcileDeliveries, type ReconcileReport } from '../core/webhooks/reconcile';

const METRIC = 'client_api_webhook_deliveries_reconciled_total';

export interface WebhookReconcileActivityDeps {
  db: Db;
  mode: Mode;
  /** A client in the mode's namespace. */
  client: Client;
  logger: Logger;
  taskQueue?: string;
  /** prom-client's default registry unless given. */
  registry?: Registry;
  graceMs?: number;
  /** Narrows every pass to one organisation (a test's or an operator's one-off run); the whole mode by default. */
  organizationId?: string;
}

/** One counter per registry, shared by the modes' activities of a process. */
function reconciledCounter(registry: Registry): Counter<'mode' | 'reason'> {
  const existing = registry.getSingleMetric(METRIC) as Counter<'mode' | 'reason'> | undefined;
  return (
    existing ??
    new Counter({
      name: METRIC,
      help: 'Pending webhook deliveries the reconciler found without a live workflow and started again',
      labelNames: ['mode', 'reason'],
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

export function createWebhookReconcileActivities(deps: WebhookReconcileActivityDeps) {
  const counter = reconciledCounter(deps.registry ?? register);
  return {
    async reconcileWebhookDeliveries(): Promise<Pick<ReconcileReport, 'checked' | 'complete'> & { fixed: number }> {
      const report = await reconcileDeliveries({ ...deps, onProgress: heartbeat });
      for (const fix of report.fixes) {
        counter.inc({ mode: deps.mode, reason: fix.reason });
        deps.logger.warn({ ...fix, mode: deps.mode }, 'webhook delivery had no live workflow: started again');
      }
      deps.logger.info(
        { mode: deps.mode, checked: report.checked, fixed: report.fixes.length, complete: report.complete },
        report.complete
          ? 'deliveries reconciled'
          : 'deliveries reconciled up to the time budget; the next pass resumes',
      );
      return { checked: report.checked, fixed: report.fixes.length, complete: report.complete };
    },
  };
}

export type WebhookReconcileActivities = ReturnType<typeof createWebhookReconcileActivities>;
