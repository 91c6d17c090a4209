/**
 * Staff users of the client console: one organisation each, one role. Tenancy in the data layer: every read by id
 * takes the organisation first (STYLE.md 4); only sign-in looks a user up by email alone.
 */
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';

export const STAFF_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export function isStaffRole(value: string): value is StaffRole {
  return (STAFF_ROLES as readonly string[]).includes(value);
}

/** A row of `staff_users`. */
export interface StaffUserRow {
  id: string;
  organization_id: string;
  email: string;
  role: StaffRole;
  created_at: Date;
}

export interface StaffUser {
  id: string;
  organizationId: string;
  email: string;
  role: StaffRole;
  createdAt: string;
}

/** The spelling stored and looked up: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A loose shape check (one `@`, something either side, no spaces); the mail that follows is the real check. */
export function isPlausibleEmail(email: string): boolean {
  return email.length >= 3 && email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email);
}

function toStaffUser(row: StaffUserRow): StaffUser {
  return {
    id: row.id,
    organizationId: row.organization_id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at.toISOString(),
  };
}

export class StaffEmailTakenError extends Error {
  constructor() {
    super('a staff user with this email already exists');
    this.name = 'StaffEmailTakenError';
  }
}

export async function createStaffUser(
  db: Db,
  organizationId: string,
  input: { email: string; role: StaffRole },
): Promise<StaffUser> {
  const email = normalizeEmail(input.email);
  const [row] = await db('staff_users')
    .insert({ id: newId(), organization_id: organizationId, email, role: input.role })
    .onConflict('email')
    .ignore()
    .returning('*');
  if (!row) throw new StaffEmailTakenError();
  return toStaffUser(row);
}

export async function listStaffUsers(db: Db, organizationId?: string): Promise<StaffUser[]> {
  const query = db('staff_users')
    .select('*')
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (organizationId) query.where({ organization_id: organizationId });
  return (await query).map(toStaffUser);
}

export async function findStaffUser(db: Db, organizationId: string, userId: string): Promise<StaffUser | null> {
  const row = await db('staff_users').where({ organization_id: organizationId, id: userId }).first();
  return row ? toStaffUser(row) : null;
}

/** Sign-in's lookup: by email alone, since the address names the one organisation the user belongs to. */
export async function findStaffUserByEmail(db: Db, email: string): Promise<StaffUser | null> {
  const row = await db('staff_users')
    .where({ email: normalizeEmail(email) })
    .first();
  return row ? toStaffUser(row) : null;
}
