/**
 * Inputs a trigger carries that must not enter workflow history: the debtor's free text,
 * such as a dispute's reason. The trigger stores it here and hands the workflow only the row's id; the activity that
 * applies the change reads it back. Scoped by organisation and debt like every other row.
 */
import type { Db } from '../platform/db';
import { isUuid, newId } from '../platform/ids';
import type { MetadataPatch } from '../debts/metadata';

export const LIFECYCLE_INPUT_KINDS = ['disputeReason', 'recallFields'] as const;
export type LifecycleInputKind = (typeof LIFECYCLE_INPUT_KINDS)[number];

/**
 * The client's own fields a recall may change at the same time (an empty `clientReference` clears it; `metadata` is
 * the PATCH's, merged into the debt's when the recall is applied).
 */
export interface RecallFields {
  externalAccountId?: string;
  clientReference?: string;
  metadata?: MetadataPatch;
}

/** A row of `lifecycle_inputs`: free text a trigger carries, kept out of workflow history. */
export interface LifecycleInputRow {
  id: string;
  organization_id: string;
  debt_id: string;
  kind: LifecycleInputKind;
  payload: LifecycleInputPayloads[LifecycleInputKind];
  created_at: Date;
}

export interface LifecycleInputPayloads {
  disputeReason: { reason: string };
  /** The fields a PATCH changes together with its recall: applied in the recall's own change, one `debt.updated`. */
  recallFields: RecallFields;
}

/** Stores an input for one of the organisation's debts and returns its id (the `reasonId` of a dispute). */
export async function recordLifecycleInput<K extends LifecycleInputKind>(
  db: Db,
  organizationId: string,
  debtId: string,
  kind: K,
  payload: LifecycleInputPayloads[K],
): Promise<string> {
  const id = newId();
  await db('lifecycle_inputs').insert({ id, organization_id: organizationId, debt_id: debtId, kind, payload });
  return id;
}

/** The payload of the debt's input `id` of this kind; undefined when there is no such input. */
export async function loadLifecycleInput<K extends LifecycleInputKind>(
  db: Db,
  organizationId: string,
  debtId: string,
  id: string,
  kind: K,
): Promise<LifecycleInputPayloads[K] | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await db<{ payload: LifecycleInputPayloads[K] }>('lifecycle_inputs')
    .where({ id, organization_id: organizationId, debt_id: debtId, kind } as Record<string, string>)
    .first('payload');
  return row?.payload;
}
