/** Organisations (tenants). Each mode's database holds only that mode's organisations. */
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';

export interface Organization {
  id: string;
  name: string;
  mode: Mode;
  createdAt: string;
}

interface OrganizationRow {
  id: string;
  name: string;
  mode: Mode;
  created_at: Date;
}

function toOrganization(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, mode: row.mode, createdAt: row.created_at.toISOString() };
}

export async function createOrganization(db: Db, input: { name: string; mode: Mode }): Promise<Organization> {
  const [row] = await db<OrganizationRow>('organizations')
    .insert({ id: newId(), name: input.name, mode: input.mode })
    .returning(['id', 'name', 'mode', 'created_at']);
  return toOrganization(row as OrganizationRow);
}

/** Tenancy: the caller's own organisation only; a missing one is `undefined`, never another's. */
export async function getOrganization(db: Db, organizationId: string): Promise<Organization | undefined> {
  const row = await db<OrganizationRow>('organizations')
    .where({ id: organizationId })
    .first('id', 'name', 'mode', 'created_at');
  return row ? toOrganization(row) : undefined;
}

export async function listOrganizations(db: Db): Promise<Organization[]> {
  const rows = await db<OrganizationRow>('organizations')
    .select('id', 'name', 'mode', 'created_at')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(toOrganization);
}
