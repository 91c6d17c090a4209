/**
 * A debt row as the lifecycle reads it: the API's columns plus `lifecycle_version` and `plan_schedule`, and the
 * workflow's `LifecycleState` built from it. Looked up by debt id alone, because the workflow knows only that.
 */
import type { Knex } from 'knex';
import type { Db, Trx } from '../platform/db';
import { debtColumns, type DebtRow } from '../debts/debts';
import { isUuid } from '../platform/ids';
import type { Instalment, LifecycleState } from './model';
import { firstUnpaidIndex } from './plan-schedule';
import { prepared } from '../platform/prepared';

export interface LifecycleRow extends DebtRow {
  lifecycle_version: number;
  /** Amounts as decimal strings; null for a debt that never had a plan (or whose plan predates schedules). */
  plan_schedule: Instalment[] | null;
}

/** The debts table for knex: `plan_schedule` is written as JSON text and read back as instalments. */
export type DebtsTable = Knex.CompositeTableType<LifecycleRow, DebtsWrite, DebtsWrite>;

/** Any column may be written, or set by SQL (`now()`); `plan_schedule` and `metadata` as JSON text. */
type DebtsWrite = {
  [K in keyof Omit<LifecycleRow, 'plan_schedule' | 'metadata'>]?: LifecycleRow[K] | Knex.Raw;
} & { plan_schedule?: string | null; metadata?: string };

export function lifecycleColumns(db: Db): ReturnType<typeof debtColumns> {
  return [...debtColumns(db), 'debts.lifecycle_version', 'debts.plan_schedule'];
}

/** The debt's row, as the lifecycle reads it. */
export async function findLifecycleRow(db: Db, debtId: string): Promise<LifecycleRow | undefined> {
  if (!isUuid(debtId)) return undefined;
  return prepared(db('debts').where('debts.id', debtId).first<LifecycleRow | undefined>(lifecycleColumns(db)));
}

/** The debt's row under a row lock, for a read-modify-write in the caller's transaction. */
export async function lockLifecycleRow(trx: Trx, debtId: string): Promise<LifecycleRow | undefined> {
  if (!isUuid(debtId)) return undefined;
  return trx('debts').where('debts.id', debtId).forUpdate().first<LifecycleRow | undefined>(lifecycleColumns(trx));
}

export function toLifecycleState(row: LifecycleRow): LifecycleState {
  if (row.plan_status === null || row.plan_frequency === null) {
    return { status: row.status, plan: null, version: row.lifecycle_version };
  }
  const schedule = row.plan_schedule ?? [];
  const index = firstUnpaidIndex(schedule);
  const next = schedule[index];
  const plan = {
    status: row.plan_status,
    frequency: row.plan_frequency,
    instalmentCount: row.plan_instalment_count ?? schedule.length,
    instalmentsPaid: row.plan_instalments_paid ?? 0,
    nextUnpaid: next ? { index, dueDate: next.dueDate } : null,
  };
  return { status: row.status, plan, version: row.lifecycle_version };
}

/** The debt's organisation and lifecycle state; undefined when there is no such debt. */
export async function loadLifecycleState(
  db: Db,
  debtId: string,
): Promise<{ organizationId: string; state: LifecycleState } | undefined> {
  const row = await findLifecycleRow(db, debtId);
  return row ? { organizationId: row.organization_id, state: toLifecycleState(row) } : undefined;
}
