/**
 * The record of debtor notifications (migration 20261204130000): one row per email a debtor is sent or would have
 * been, unique by what caused it, so a replayed event or a retried activity makes one row. A row is created `pending`
 * and handled once by whichever sender claims it (notification-sender.ts); a claim older than CLAIM_EXPIRY_MS is
 * taken again (its sender died mid-send).
 */
import type { Db, Trx } from '../platform/db';
import type { Mode } from '../platform/mode';
import type { SealedSecretColumns } from '../platform/secret-box';
import { newId } from '../platform/ids';
import type { NotificationKind } from './debtor-messages';

export type NotificationStatus = 'pending' | 'sending' | 'sent' | 'suppressed' | 'failed' | 'recorded';

/** Why a notification was not sent. */
export type SuppressionReason = 'opted_out' | 'no_email' | 'debt_ended' | 'plan_not_current' | 'too_late' | 'paid';

/** A sender that has held a claim this long is presumed dead: the notification is taken again. */
export const CLAIM_EXPIRY_MS = 5 * 60_000;
/** Sends tried before a notification is `failed` for good. */
export const MAX_SEND_ATTEMPTS = 5;

export interface NotificationRow {
  id: string;
  organization_id: string;
  debt_id: string;
  kind: NotificationKind;
  source_id: string;
  instalment_index: number | null;
  status: NotificationStatus;
  reason: string | null;
  subject: string | null;
  body: string | null;
  attempts: number;
  created_at: Date;
  handled_at: Date | null;
}

/** A claimed row, with its message's sealed secrets while it has some (message-secrets.ts). */
export type ClaimedNotificationRow = NotificationRow & Partial<SealedSecretColumns>;

export interface NewNotification {
  organizationId: string;
  debtId: string;
  kind: NotificationKind;
  sourceId: string;
  instalmentIndex?: number;
  /** Caused by bulk work (a placement's import, core/events/bulk-work.ts): sent after the organisation's others. */
  bulk?: boolean;
}

/**
 * Records notifications unless recorded before (same source, kind and instalment); returns the ids of those it
 * created now, which the caller then handles.
 */
export async function recordNotifications(db: Db | Trx, items: NewNotification[]): Promise<string[]> {
  if (items.length === 0) return [];
  const values = items.map(() => '(?::uuid, ?::uuid, ?::uuid, ?, ?, ?::integer, ?::boolean)').join(', ');
  const bindings = items.flatMap((n) => [
    newId(),
    n.organizationId,
    n.debtId,
    n.kind,
    n.sourceId,
    n.instalmentIndex ?? null,
    n.bulk ?? false,
  ]);
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `insert into debtor_notifications (id, organization_id, debt_id, kind, source_id, instalment_index, bulk)
     values ${values}
     on conflict do nothing
     returning id`,
    bindings,
  );
  return rows.map((r) => r.id);
}

/** Takes the notification for sending: null when it is handled already or another sender holds a live claim. */
export async function claimNotification(db: Db, id: string, now = new Date()): Promise<ClaimedNotificationRow | null> {
  const { rows } = await db.raw<{ rows: ClaimedNotificationRow[] }>(
    `update debtor_notifications set status = 'sending', claimed_at = ?, attempts = attempts + 1
      where id = ? and (status = 'pending' or status = 'sending' and claimed_at < ?)
      returning *`,
    [now, id, new Date(now.getTime() - CLAIM_EXPIRY_MS)],
  );
  return rows[0] ?? null;
}

export async function finishNotification(
  db: Db,
  id: string,
  outcome:
    | { status: 'sent' }
    | { status: 'suppressed'; reason: SuppressionReason }
    | { status: 'failed'; reason: string }
    | { status: 'recorded'; subject: string; body: string },
): Promise<void> {
  await db('debtor_notifications')
    .where({ id })
    .update({
      status: outcome.status,
      reason: 'reason' in outcome ? outcome.reason : null,
      subject: 'subject' in outcome ? outcome.subject : null,
      body: 'body' in outcome ? outcome.body : null,
      handled_at: new Date(),
      claimed_at: null,
      // Handled: no attempt will need the message's secrets again.
      secret_key_id: null,
      secret_iv: null,
      secret_tag: null,
      secret_ciphertext: null,
    });
}

/** A send that failed but may be tried again: back to `pending`; the dispatcher waits a minute per attempt made. */
export async function releaseNotification(db: Db, id: string): Promise<void> {
  await db('debtor_notifications').where({ id, status: 'sending' }).update({ status: 'pending' });
}

/** Claimed rows whose send never started (a dispatcher stopping): `pending` again at once, the attempt not counted. */
export async function returnUnsentNotifications(db: Db, ids: string[]): Promise<void> {
  await db('debtor_notifications')
    .whereIn('id', ids)
    .where({ status: 'sending' })
    .update({ status: 'pending', claimed_at: null, attempts: db.raw('greatest(attempts - 1, 0)') });
}

/** A row a claim returned: its round is its place among its organisation's claimed rows (1 for its next). */
export type RoundClaimedRow = ClaimedNotificationRow & { round: number };

/**
 * Takes up to `limit` notifications that are due a try, round-robin across the mode's organisations, and claims them
 * (`sending`, as claimNotification does): every organisation's next due notification (round 1) before any
 * organisation's second, then the seconds, and so on; within a round, the oldest first. A tenant with ten thousand
 * pending notifications therefore takes one place in each round, and a tenant with one is in the first. An
 * organisation's next is its oldest that is not bulk work (a placement's, core/events/bulk-work.ts), else its oldest:
 * a debtor of a debt raised through the API is mailed before the tenant's placement's thousands.
 *
 * Due: `pending` and not waiting out a failed attempt's pause (a minute per attempt made), or `sending` under a claim
 * older than CLAIM_EXPIRY_MS (its sender died). The update checks that again on each row it locks, so two dispatchers
 * (two worker processes) never claim the same row: the second finds it claimed and skips it. That re-check is written
 * `(…) is true` so the planner cannot match it to the unhandled rows' partial index: with statistics made before a
 * burst that index looks empty, and the update walked all of it instead of finding the picked rows by primary key
 * (test/integration/owed-start-claim-plan.test.ts).
 */
export async function claimDueNotifications(db: Db, mode: Mode, limit: number): Promise<RoundClaimedRow[]> {
  const due = `(n.status = 'pending' and (n.claimed_at is null or n.claimed_at < now() - n.attempts * interval '1 minute')
                or n.status = 'sending' and n.claimed_at < now() - :expiry * interval '1 millisecond')`;
  // The organisations with unhandled rows, one index probe each (a skip scan of debtor_notifications_unhandled_by_org:
  // a plain `distinct` would read every unhandled row of every tenant); then each one's oldest due rows.
  const { rows } = await db.raw<{ rows: RoundClaimedRow[] }>(
    `with recursive orgs(id) as (
       (select organization_id from debtor_notifications where status in ('pending', 'sending')
         order by organization_id limit 1)
       union all
       select (select n.organization_id from debtor_notifications n
                where n.status in ('pending', 'sending') and n.organization_id > orgs.id
                order by n.organization_id limit 1)
         from orgs where orgs.id is not null
     ),
     picked as (
       select c.id, c.round from orgs
         join organizations o on o.id = orgs.id and o.mode = :mode
         cross join lateral (
           select n.id, n.created_at, row_number() over (order by n.bulk, n.created_at, n.id) as round
             from debtor_notifications n
            where n.organization_id = orgs.id and n.status in ('pending', 'sending') and ${due}
            order by n.bulk, n.created_at, n.id
            limit :limit
         ) c
        order by c.round, c.created_at, c.id
        limit :limit
     )
     update debtor_notifications n
        set status = 'sending', claimed_at = now(), attempts = n.attempts + 1
       from picked
      where n.id = picked.id and (${due}) is true
     returning n.*, picked.round::integer as round`,
    { mode, limit, expiry: CLAIM_EXPIRY_MS },
  );
  return rows.sort(
    (a, b) => a.round - b.round || a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id),
  );
}

export async function getNotification(db: Db, organizationId: string, id: string): Promise<NotificationRow | null> {
  const row = await db('debtor_notifications')
    .where({ organization_id: organizationId, id })
    .first<NotificationRow | undefined>();
  return row ?? null;
}

/** The notification's debt's notifications, oldest first (tests and the console). */
export async function notificationsOfDebt(db: Db, organizationId: string, debtId: string): Promise<NotificationRow[]> {
  return db('debtor_notifications')
    .where({ organization_id: organizationId, debt_id: debtId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select<NotificationRow[]>('*');
}

export interface ListedNotification {
  id: string;
  debtId: string;
  accountReference: string;
  kind: NotificationKind;
  instalmentIndex: number | null;
  status: NotificationStatus;
  reason: string | null;
  subject: string | null;
  body: string | null;
  createdAt: string;
}

/** The organisation's notifications, newest first, with the account reference of each debt. */
export async function listNotifications(
  db: Db,
  organizationId: string,
  options: { limit: number; debtId?: string },
): Promise<ListedNotification[]> {
  const query = db('debtor_notifications as n')
    .join('debts as d', (j) => j.on('d.id', 'n.debt_id').andOn('d.organization_id', 'n.organization_id'))
    .where('n.organization_id', organizationId)
    .orderBy([
      { column: 'n.created_at', order: 'desc' },
      { column: 'n.id', order: 'desc' },
    ])
    .limit(options.limit);
  if (options.debtId) void query.where('n.debt_id', options.debtId);
  const rows = await query.select<(NotificationRow & { external_account_id: string })[]>(
    'n.*',
    'd.external_account_id',
  );
  return rows.map((r) => ({
    id: r.id,
    debtId: r.debt_id,
    accountReference: r.external_account_id,
    kind: r.kind,
    instalmentIndex: r.instalment_index,
    status: r.status,
    reason: r.reason,
    subject: r.subject,
    body: r.body,
    createdAt: r.created_at.toISOString(),
  }));
}
