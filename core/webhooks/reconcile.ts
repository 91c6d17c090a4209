/**
 * The delivery reconciler: every `Pending` delivery must have a live run. It finds the ones that do not and gives
 * them one:
 * - never started (the consumer's start was lost and its sweep has not caught it, e.g. the relay is down): started,
 *   but only as many of an organisation's as admission by progress lets in (delivery-consumer.ts). A burst's owed
 *   deliveries wait in PostgreSQL past the grace period by design; started all at once, 3,500 of them went into the
 *   Temporal server together, another tenant's start waited behind them for minutes, and the burst's first attempts,
 *   their queue suddenly thousands long, slept up to the busy wait's 10-minute cap (docs/operators/performance.md).
 *   The rest stay owed, for the fair starter or the next pass;
 * - started, but the run's workflow is gone (terminated, timed out, deleted by retention) or closed while the delivery
 *   is still `Pending` (a run that ended without recording its outcome): restarted as a new generation, attempt 1 at
 *   once, the attempt log numbered on. Restarting rather than marking `Failed`: the receiver never got its full
 *   schedule, so the client expects the event to arrive (docs/product-choices.md).
 * It looks only at deliveries that are overdue: whose next attempt (`next_attempt_at`), or before the first attempt
 * their start or enqueueing, is more than the grace period past. A delivery waiting for a retry hours away is not
 * looked at until that retry is late, so a pass costs what is overdue, not the whole Pending backlog; the grace
 * period keeps a run being started right now from being mistaken for a lost one. A pass walks the overdue deliveries
 * in the order they fell due (index `webhook_deliveries_pending_due`), saves its position after every page
 * (`webhook_reconcile_positions`) and stops when its time budget is spent, so however long the backlog, each pass
 * ends within its activity's timeout and the next one resumes where it stopped; a pass that reaches the end clears
 * the position, and the next starts again from the oldest. Runs on a Temporal Schedule (reconcile-schedule.ts);
 * reports what it fixed to the caller.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import { workflowIds } from '../temporal/names';
import { DELIVERIES_IN_FLIGHT_PER_ORGANIZATION } from './delivery-consumer';
import { createDeliveryStarter, type DeliveryStarter } from './delivery-starter';
import { admissionRoom, deliveryRefOf, type DeliveryRef } from './dispatch';

export const RECONCILE_GRACE_MS = 120_000;
/** Under the activity's 4-minute start-to-close timeout (workflows/webhook-reconcile.ts), with a page to spare. */
export const RECONCILE_BUDGET_MS = 180_000;
const PAGE = 200;
/** When a Pending delivery is next expected to move; the expression of index `webhook_deliveries_pending_due`. */
const DUE_AT = 'greatest(d.updated_at, d.workflow_started_at, d.next_attempt_at)';
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
  /** How long a pass may take before it saves its position and stops; RECONCILE_BUDGET_MS by default. */
  budgetMs?: number;
  /** Deliveries per page (and per position saved); PAGE by default (tests use 1). */
  pageSize?: number;
  /** Admission's bound (default DELIVERIES_IN_FLIGHT_PER_ORGANIZATION; tests lower it). */
  inFlightPerOrganization?: number;
}

export interface ReconcileReport {
  checked: number;
  fixes: DeliveryFix[];
  /** Whether the pass reached the end of the overdue deliveries (false: its budget ran out; the next resumes). */
  complete: boolean;
}

/** Where a pass stopped: the last delivery it looked at, in due order. */
export interface ReconcilePosition {
  dueAt: Date;
  deliveryId: string;
}

interface PendingRow {
  due_at: Date;
  id: string;
  organization_id: string;
  event_type: string;
  generation: number;
  request_id: string | null;
  bulk: boolean;
  workflow_started_at: Date | null;
}

interface Diagnosis {
  row: PendingRow;
  fix: DeliveryFix;
}

export async function reconcileDeliveries(options: ReconcileOptions): Promise<ReconcileReport> {
  const deadline = Date.now() + (options.budgetMs ?? RECONCILE_BUDGET_MS);
  const starter = createDeliveryStarter(options);
  const scope = positionScope(options);
  const report: ReconcileReport = { checked: 0, fixes: [], complete: false };
  const cutoff = await overdueCutoff(options.db, options.graceMs ?? RECONCILE_GRACE_MS);
  let position = await readReconcilePosition(options.db, scope);
  // At least one page per pass, however short the budget: every pass moves the position on.
  do {
    const page = await overduePage(options, cutoff, position);
    const last = page.at(-1);
    if (!last) {
      await options.db('webhook_reconcile_positions').where({ scope }).delete();
      report.complete = true;
      return report;
    }
    report.checked += page.length;
    report.fixes.push(...(await fixPage(options, starter, page)));
    position = { dueAt: last.due_at, deliveryId: last.id };
    await savePosition(options.db, scope, position);
    options.onProgress?.();
  } while (Date.now() < deadline);
  return report;
}

/** A pass narrowed to one organisation keeps its own position, apart from the mode's. */
function positionScope(options: Pick<ReconcileOptions, 'mode' | 'organizationId'>): string {
  return options.organizationId ? `${options.mode}:${options.organizationId}` : options.mode;
}

/** Where the next pass over `options`' deliveries starts; undefined when it starts from the oldest overdue one. */
export async function readReconcilePosition(
  db: Db,
  scopeOf: string | Pick<ReconcileOptions, 'mode' | 'organizationId'>,
): Promise<ReconcilePosition | undefined> {
  const scope = typeof scopeOf === 'string' ? scopeOf : positionScope(scopeOf);
  const row = await db('webhook_reconcile_positions')
    .where({ scope })
    .first<{ due_at: Date; delivery_id: string } | undefined>('due_at', 'delivery_id');
  return row && { dueAt: row.due_at, deliveryId: row.delivery_id };
}

async function savePosition(db: Db, scope: string, position: ReconcilePosition): Promise<void> {
  await db('webhook_reconcile_positions')
    .insert({ scope, due_at: position.dueAt, delivery_id: position.deliveryId, updated_at: db.fn.now(3) })
    .onConflict('scope')
    .merge();
}

/** The database's clock minus the grace period, read once per pass: what falls due during the pass waits for the next. */
async function overdueCutoff(db: Db, graceMs: number): Promise<Date> {
  const { rows } = await db.raw<{ rows: { cutoff: Date }[] }>(
    `select current_timestamp(3) - make_interval(secs => ?) as cutoff`,
    [graceMs / 1000],
  );
  return rows[0]!.cutoff;
}

/** Diagnoses a page, gives each lost delivery a run, and returns the fixes whose run started. */
async function fixPage(
  options: ReconcileOptions,
  starter: DeliveryStarter,
  page: PendingRow[],
): Promise<DeliveryFix[]> {
  const diagnosed = await inChunks(page, DESCRIBE_CONCURRENCY, (row) => diagnose(options.client, row));
  const found = await withinAdmission(
    options,
    diagnosed.filter((d): d is Diagnosis => d !== undefined),
  );
  const refs = await Promise.all(found.map((d) => runToStart(options.db, d)));
  const toStart = refs.filter((ref): ref is DeliveryRef => ref !== undefined);
  await starter.startAll(toStart);
  const started = new Set(toStart.map((ref) => ref.deliveryId));
  return found.map(({ fix }) => fix).filter((fix) => started.has(fix.deliveryId));
}

/**
 * The diagnoses to act on: every lost run, and of the never-started deliveries only as many of each organisation's,
 * oldest first, as its room under admission by progress. The others are owed like any other delivery, not lost.
 */
async function withinAdmission(options: ReconcileOptions, found: Diagnosis[]): Promise<Diagnosis[]> {
  const unstarted = found.filter((d) => d.fix.reason === 'unstarted');
  if (unstarted.length === 0) return found;
  const room = await admissionRoom(
    options.db,
    unstarted.map((d) => d.fix.organizationId),
    options.inFlightPerOrganization ?? DELIVERIES_IN_FLIGHT_PER_ORGANIZATION,
  );
  return found.filter((d) => {
    if (d.fix.reason !== 'unstarted') return true;
    const left = room.get(d.fix.organizationId) ?? 0;
    room.set(d.fix.organizationId, left - 1);
    return left > 0;
  });
}

/** The run to start: the unstarted one as it is, or a new generation in place of a lost one. */
async function runToStart(db: Db, { row, fix }: Diagnosis): Promise<DeliveryRef | undefined> {
  return fix.reason === 'unstarted' ? deliveryRefOf(row) : restart(db, row);
}

/** The next page of the mode's Pending deliveries overdue at `cutoff`, in due order after `position`. */
function overduePage(
  options: ReconcileOptions,
  cutoff: Date,
  position: ReconcilePosition | undefined,
): Promise<PendingRow[]> {
  return options
    .db('webhook_deliveries as d')
    .join('organizations as o', 'o.id', 'd.organization_id')
    .where({ 'd.status': 'Pending', 'o.mode': options.mode })
    .andWhereRaw(`${DUE_AT} <= ?::timestamptz`, [cutoff])
    .modify((q) => {
      if (position)
        void q.andWhereRaw(`(${DUE_AT}, d.id) > (?::timestamptz, ?::uuid)`, [position.dueAt, position.deliveryId]);
      if (options.organizationId) void q.andWhere('d.organization_id', options.organizationId);
    })
    .orderByRaw(`${DUE_AT}, d.id`)
    .limit(options.pageSize ?? PAGE)
    .select(
      options.db.raw(`${DUE_AT} as due_at`),
      'd.id',
      'd.organization_id',
      'd.event_type',
      'd.generation',
      'd.request_id',
      'd.bulk',
      'd.workflow_started_at',
    );
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
  return moved ? { ...deliveryRefOf(row), generation: (moved as { generation: number }).generation } : undefined;
}

async function inChunks<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return results;
}
