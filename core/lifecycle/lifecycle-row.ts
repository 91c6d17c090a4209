/**
 * A debt row as the lifecycle reads it: the API's columns plus `lifecycle_version` and `plan_schedule`, and the
 * workflow's `LifecycleState` built from it. Looked up by debt id alone, because the workflow knows only that.
 */
import type { Db } from '../platform/db';
import { debtColumns, type DebtRow } from '../debts/debts';
import { isUuid } from '../platform/ids';
import type { Instalment, LifecycleState } from './model';

export interface LifecycleRow extends DebtRow {
  lifecycle_version: number;
  /** Amounts as decimal strings; null for a debt that never had a plan (or whose plan predates schedules). */
  plan_schedule: Instalment[] | null;
}

export function lifecycleColumns(db: Db): ReturnType<typeof debtColumns> {
  return [...debtColumns(db), 'debts.lifecycle_version', 'debts.plan_schedule'];
}

/** The debt's row; `lock` takes a row lock for a read-modify-write in the caller's transaction. */
export async function findLifecycleRow(
  db: Db,
  debtId: string,
  options: { lock?: boolean } = {},
): Promise<LifecycleRow | undefined> {
  if (!isUuid(debtId)) return undefined;
  const query = db('debts').where('debts.id', debtId).first(lifecycleColumns(db));
  if (options.lock) void query.forUpdate();
  return (await query) as LifecycleRow | undefined;
}

export function toLifecycleState(row: LifecycleRow): LifecycleState {
  const plan =
    row.plan_status === null || row.plan_frequency === null
      ? null
      : { status: row.plan_status, frequency: row.plan_frequency, instalments: row.plan_schedule ?? [] };
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
