/**
 * The delivery reconciler: every `Pending` delivery must have a live run. It finds the ones that do not and gives
 * them one:
 * - never started (the consumer's start was lost and its sweep has not caught it, e.g. the relay is down): started;
 * - started, but the run's workflow is gone (terminated, timed out, deleted by retention) or closed while the delivery
 *   is still `Pending` (a run that ended without recording its outcome): restarted as a new generation, attempt 1 at
 *   once, the attempt log numbered on. Restarting rather than marking `Failed`: the receiver never got its full
 *   schedule, so the client expects the event to arrive (docs/product-choices.md).
 * Deliveries touched within the grace period are left alone, so a run being started right now is not mistaken for a
 * lost one. Runs on a Temporal Schedule (reconcile-schedule.ts); reports what it fixed to the caller.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { workflowIds } from '../temporal/names';
import { createDeliveryStarter, type DeliveryStarter } from './delivery-starter';
import type { DeliveryRef } from './dispatch';

export const RECONCILE_GRACE_MS = 120_000;
const PAGE = 200;
const DESCRIBE_CONCURRENCY = 20;

export type FixReason = 'unstarted' | 'workflow_missing' | 'workflow_closed';

export interface DeliveryFix {
  deliveryId: string;
  organizationId: string;
  reason: FixReason;
  /** The lost run's status (`TERMINATED`, `COMPLETED`, …) when it still exists. */
  workflowStatus?: string;
}

export interface ReconcileOptions {
  db: Db;
  mode: Mode;
  /** A client in the mode's namespace. */
  client: Client;
  taskQueue?: string;
  graceMs?: number;
  /** Narrows the pass to one organisation (an operator's or a test's choice); all of the mode by default. */
  organizationId?: string;
  /** Called once per page, so a long pass can heartbeat. */
  onProgress?: () => void;
}

export interface ReconcileReport {
  checked: number;
  fixes: DeliveryFix[];
}

interface PendingRow {
  id: string;
  organization_id: string;
  event_type: string;
  generation: number;
  request_id: string | null;
  workflow_started_at: Date | null;
}

interface Diagnosis {
  row: PendingRow;
  fix: DeliveryFix;
}

const toRef = (row: PendingRow): DeliveryRef => ({
  deliveryId: row.id,
  organizationId: row.organization_id,
  eventType: row.event_type,
  generation: row.generation,
  requestId: row.request_id,
});

export async function reconcileDeliveries(options: ReconcileOptions): Promise<ReconcileReport> {
  const starter = createDeliveryStarter(options);
  const report: ReconcileReport = { checked: 0, fixes: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const page = await pendingPage(options, after);
    if (page.length === 0) return report;
    after = page.at(-1)!.id;
    report.checked += page.length;
    report.fixes.push(...(await fixPage(options, starter, page)));
    options.onProgress?.();
  }
}

/** Diagnoses a page, gives each lost delivery a run, and returns the fixes whose run started. */
async function fixPage(
  options: ReconcileOptions,
  starter: DeliveryStarter,
  page: PendingRow[],
): Promise<DeliveryFix[]> {
  const diagnosed = await inChunks(page, DESCRIBE_CONCURRENCY, (row) => diagnose(options.client, row));
  const found = diagnosed.filter((d): d is Diagnosis => d !== undefined);
  const refs = await Promise.all(found.map((d) => runToStart(options.db, d)));
  const toStart = refs.filter((ref): ref is DeliveryRef => ref !== undefined);
  await starter.startAll(toStart);
  const started = new Set(toStart.map((ref) => ref.deliveryId));
  return found.map(({ fix }) => fix).filter((fix) => started.has(fix.deliveryId));
}

/** The run to start: the unstarted one as it is, or a new generation in place of a lost one. */
async function runToStart(db: Db, { row, fix }: Diagnosis): Promise<DeliveryRef | undefined> {
  return fix.reason === 'unstarted' ? toRef(row) : restart(db, row);
}

/** Pending deliveries of the mode untouched for the grace period, by id after `after`. */
function pendingPage(options: ReconcileOptions, after: string): Promise<PendingRow[]> {
  const graceSeconds = (options.graceMs ?? RECONCILE_GRACE_MS) / 1000;
  return options
    .db('webhook_deliveries as d')
    .join('organizations as o', 'o.id', 'd.organization_id')
    .where({ 'd.status': 'Pending', 'o.mode': options.mode })
    .andWhere('d.id', '>', after)
    .andWhereRaw(`greatest(d.updated_at, d.workflow_started_at) <= now() - make_interval(secs => ?)`, [graceSeconds])
    .modify((q) => {
      if (options.organizationId) void q.andWhere('d.organization_id', options.organizationId);
    })
    .orderBy('d.id')
    .limit(PAGE)
    .select('d.id', 'd.organization_id', 'd.event_type', 'd.generation', 'd.request_id', 'd.workflow_started_at');
}

/** What is wrong with this delivery's run, if anything. */
async function diagnose(client: Client, row: PendingRow): Promise<Diagnosis | undefined> {
  const base = { deliveryId: row.id, organizationId: row.organization_id };
  if (!row.workflow_started_at) return { row, fix: { ...base, reason: 'unstarted' } };
  try {
    const described = await client.workflow.getHandle(workflowIds.webhookDelivery(row.id, row.generation)).describe();
    if (described.status.name === 'RUNNING') return undefined;
    return { row, fix: { ...base, reason: 'workflow_closed', workflowStatus: described.status.name } };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { row, fix: { ...base, reason: 'workflow_missing' } };
    throw err;
  }
}

/**
 * A new generation of a delivery whose run is lost, as a manual retry makes one; only if nothing moved it meanwhile
 * (the lost run's last activity may still have finished it).
 */
async function restart(db: Db, row: PendingRow): Promise<DeliveryRef | undefined> {
  const [moved] = await db('webhook_deliveries')
    .where({ id: row.id, generation: row.generation, status: 'Pending' })
    .update({
      generation: row.generation + 1,
      attempt_base: db.raw<number>('attempt_count'),
      next_attempt_at: null,
      workflow_started_at: null,
      updated_at: db.fn.now(3),
    })
    .returning(['generation']);
  return moved ? { ...toRef(row), generation: (moved as { generation: number }).generation } : undefined;
}

async function inChunks<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return results;
}
