/**
 * The console's audit log: who minted or revoked a key, changed the webhook or branding, retried a delivery,
 * recalled a debt, invited or removed a user. Written in the same transaction as the change it records where the
 * change has one, so an entry exists exactly when the change does. Never holds a secret: `details` says what changed
 * (a key's prefix and scopes, a URL, the fields of a branding change), never a key, a signing secret or a token.
 */
import type { Knex } from 'knex';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { newId } from '../platform/ids';
import { fetchPage, type Page, type PageRequest } from '../platform/pagination';
import type { StaffActor } from './staff-actor';

export const AUDIT_ACTIONS = [
  'key.minted',
  'key.revoked',
  'webhook.configured',
  'webhook.cleared',
  'webhook.secret_rotated',
  'webhook.test_sent',
  'delivery.retried',
  'delivery.retried_now',
  'deliveries.retried_failed',
  'branding.changed',
  'portal.plan_rules_changed',
  'debt.recalled',
  'user.invited',
  'user.role_changed',
  'user.removed',
  'sandbox.reset_requested',
  'sandbox.signed_up',
  'debt.simulated',
  'portal_link.sent',
  'portal_link.revoked',
  'placement.uploaded',
  'placement.cancelled',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** A row of `audit_log`; `details` is `json`, parsed by the driver. */
export interface AuditRow {
  id: string;
  organization_id: string;
  mode: Mode;
  actor_user_id: string | null;
  actor_email: string;
  action: AuditAction;
  target: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

/** The table for knex: `details` is written as JSON text. */
export type AuditLogTable = Knex.CompositeTableType<AuditRow, AuditWrite, AuditWrite>;
type AuditWrite = Omit<AuditRow, 'details' | 'created_at'> & { details: string };

export interface AuditEntry {
  action: AuditAction;
  /** What was acted on: a key id, a delivery id, a debt id, a user's email. */
  target?: string;
  /** What changed; never a secret. */
  details?: Record<string, unknown>;
}

/** Records `entry` by `actor` in `db` (pass the change's transaction). */
export async function recordAudit(db: Db, actor: StaffActor, mode: Mode, entry: AuditEntry): Promise<void> {
  await db('audit_log').insert({
    id: newId(),
    organization_id: actor.organizationId,
    mode,
    actor_user_id: actor.userId,
    actor_email: actor.email,
    action: entry.action,
    target: entry.target ?? null,
    details: JSON.stringify(entry.details ?? {}),
  });
}

/** The Audit log page's filters: one actor, one action (either or both). */
export interface AuditFilter {
  actorEmail?: string;
  action?: AuditAction;
}

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

/** Everyone who has an entry in the organisation's log of this mode, by email: the actor filter's choices. */
export async function listAuditActors(db: Db, organizationId: string, mode: Mode): Promise<string[]> {
  const rows = await db('audit_log')
    .where({ organization_id: organizationId, mode })
    .distinct('actor_email')
    .orderBy('actor_email');
  return rows.map((row: { actor_email: string }) => row.actor_email);
}

export interface AuditLogEntry {
  id: string;
  actorEmail: string;
  action: AuditAction;
  target: string | null;
  details: Record<string, unknown>;
  createdAt: string;
}

/**
 * The organisation's entries of this mode, newest first, a page at a time. Pages follow the (created_at, id) keyset
 * as the API's lists do: entries of one transaction share their time to the millisecond, and a cursor of the time
 * alone would skip or repeat them at a page's edge.
 */
export async function listAudit(
  db: Db,
  organizationId: string,
  mode: Mode,
  page: PageRequest = { limit: 100 },
  filter: AuditFilter = {},
): Promise<Page<AuditLogEntry>> {
  const query = db('audit_log').where({ organization_id: organizationId, mode });
  if (filter.actorEmail) query.where({ actor_email: filter.actorEmail });
  if (filter.action) query.where({ action: filter.action });
  return fetchPage<AuditRow, AuditLogEntry>(
    query.select('*'),
    {
      list: 'audit',
      page,
      createdAtColumn: 'audit_log.created_at',
      idColumn: 'audit_log.id',
      position: (row) => ({ createdAt: row.created_at, id: row.id }),
    },
    (row) => ({
      id: row.id,
      actorEmail: row.actor_email,
      action: row.action,
      target: row.target,
      details: row.details,
      createdAt: row.created_at.toISOString(),
    }),
  );
}
