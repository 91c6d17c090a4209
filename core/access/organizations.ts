/** Organisations (tenants). Each mode's database holds only that mode's organisations. */
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';
import { prepared } from '../platform/prepared';

export interface Organization {
  id: string;
  name: string;
  mode: Mode;
  createdAt: string;
}

/** A row of `organizations`. */
export interface OrganizationRow {
  id: string;
  name: string;
  mode: Mode;
  created_at: Date;
  updated_at: Date;
  /** Sandbox only: the reset workflow run whose reset last committed (core/sandbox/reset-tenant.ts). */
  sandbox_reset_run_id?: string | null;
  /** Sandbox only: the last `POST /v1/sandbox/reset`, and the last reset's commit (core/sandbox/reset-status.ts). */
  sandbox_reset_requested_at?: Date | null;
  sandbox_reset_at?: Date | null;
}

const COLUMNS = ['id', 'name', 'mode', 'created_at'] as const;

function toOrganization(row: Pick<OrganizationRow, (typeof COLUMNS)[number]>): Organization {
  return { id: row.id, name: row.name, mode: row.mode, createdAt: row.created_at.toISOString() };
}

export async function createOrganization(db: Db, input: { name: string; mode: Mode }): Promise<Organization> {
  const [row] = await db('organizations')
    .insert({ id: newId(), name: input.name, mode: input.mode })
    .returning(COLUMNS);
  if (!row) throw new Error('insert into organizations returned no row');
  return toOrganization(row);
}

/** Tenancy: the caller's own organisation only; a missing one is `undefined`, never another's. */
export async function getOrganization(db: Db, organizationId: string): Promise<Organization | undefined> {
  const row = await prepared(
    db('organizations')
      .where({ id: organizationId })
      .first(...COLUMNS),
  );
  return row ? toOrganization(row) : undefined;
}

export async function listOrganizations(db: Db): Promise<Organization[]> {
  const rows = await db('organizations')
    .select(...COLUMNS)
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(toOrganization);
}
