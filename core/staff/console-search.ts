/**
 * The console's one search box: what a support person pastes — a debt's id, external account id
 * or client reference, a debtor's reference or email, an event's or a delivery's id, or a request id from a ticket —
 * answered by exact matches, each an index probe within the organisation (never a scan of the tenant). A request id
 * answers with what that request changed (its events) and delivered (their deliveries).
 */
import { isRequestId } from '../events/request-cause';
import { isEventId, isUuid } from '../platform/ids';
import type { Db } from '../platform/db';

export type SearchHitKind = 'debt' | 'debtor' | 'event' | 'delivery';

export interface SearchHit {
  kind: SearchHitKind;
  id: string;
  /** What the hit is, in a few words ("Debt ACCT-1 · Active", "debt.created"). */
  label: string;
  /** How the query matched it ("external account id", "request id", …). */
  matched: string;
  /** Its console page, when it has one. */
  href?: string;
  createdAt: string;
}

/** Hits per kind at most: exact matches are few; a request id's events and deliveries are a request's worth. */
const LIMIT = 50;

interface DebtRow {
  id: string;
  external_account_id: string;
  client_reference: string | null;
  status: string;
  created_at: Date;
}

function debtHit(row: DebtRow, matched: string): SearchHit {
  return {
    kind: 'debt',
    id: row.id,
    label: `Debt ${row.external_account_id} · ${row.status}`,
    matched,
    href: `/console/debts/${row.id}`,
    createdAt: row.created_at.toISOString(),
  };
}

async function debts(db: Db, organizationId: string, q: string): Promise<SearchHit[]> {
  const select = ['id', 'external_account_id', 'client_reference', 'status', 'created_at'];
  const byId = isUuid(q)
    ? await db('debts').where({ organization_id: organizationId, id: q }).select<DebtRow[]>(select)
    : [];
  const byAccount = await db('debts')
    .where({ organization_id: organizationId, external_account_id: q })
    .orderBy([{ column: 'created_at', order: 'desc' }])
    .limit(LIMIT)
    .select<DebtRow[]>(select);
  const byReference = await db('debts')
    .where({ organization_id: organizationId, client_reference: q })
    .orderBy([{ column: 'created_at', order: 'desc' }])
    .limit(LIMIT)
    .select<DebtRow[]>(select);
  return [
    ...byId.map((r) => debtHit(r, 'id')),
    ...byAccount.map((r) => debtHit(r, 'external account id')),
    ...byReference.map((r) => debtHit(r, 'client reference')),
  ];
}

async function debtors(db: Db, organizationId: string, q: string): Promise<SearchHit[]> {
  const rows = await db('debtors')
    .where({ organization_id: organizationId })
    .andWhere((w) => {
      void w.where('reference_id', q).orWhereRaw('lower(email) = lower(?)', [q]);
      if (isUuid(q)) void w.orWhere('id', q);
    })
    .orderBy([{ column: 'created_at', order: 'desc' }])
    .limit(LIMIT)
    .select<
      {
        id: string;
        reference_id: string;
        first_name: string;
        last_name: string;
        email: string | null;
        created_at: Date;
      }[]
    >('id', 'reference_id', 'first_name', 'last_name', 'email', 'created_at');
  return rows.map((r) => ({
    kind: 'debtor' as const,
    id: r.id,
    label: `Debtor ${r.first_name} ${r.last_name} · ${r.reference_id}`,
    matched: r.id === q ? 'id' : r.reference_id === q ? 'reference' : 'email',
    href: `/console/debtors/${r.id}`,
    createdAt: r.created_at.toISOString(),
  }));
}

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  created_at: Date;
}

function deliveryHit(row: DeliveryRow, matched: string): SearchHit {
  return {
    kind: 'delivery',
    id: row.id,
    label: `Delivery of ${row.event_type} · ${row.status}`,
    matched,
    href: `/console/deliveries/${row.id}`,
    createdAt: row.created_at.toISOString(),
  };
}

async function eventsAndDeliveries(db: Db, organizationId: string, q: string): Promise<SearchHit[]> {
  const deliveryColumns = ['id', 'event_id', 'event_type', 'status', 'created_at'];
  const eventColumns = ['id', 'type', 'created_at'];
  const toEvent = (e: { id: string; type: string; created_at: Date }, matched: string): SearchHit => ({
    kind: 'event',
    id: e.id,
    label: e.type,
    matched,
    createdAt: e.created_at.toISOString(),
  });
  if (isEventId(q)) {
    const event = await db('events')
      .where({ organization_id: organizationId, id: q })
      .first<{ id: string; type: string; created_at: Date } | undefined>(eventColumns);
    const delivery = await db('webhook_deliveries')
      .where({ organization_id: organizationId, event_id: q })
      .select<DeliveryRow[]>(deliveryColumns);
    return [...(event ? [toEvent(event, 'id')] : []), ...delivery.map((d) => deliveryHit(d, 'its event'))];
  }
  if (isUuid(q)) {
    const delivery = await db('webhook_deliveries')
      .where({ organization_id: organizationId, id: q })
      .select<DeliveryRow[]>(deliveryColumns);
    return delivery.map((d) => deliveryHit(d, 'id'));
  }
  if (isRequestId(q)) {
    const events = await db('events')
      .where({ organization_id: organizationId, request_id: q })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(LIMIT)
      .select<{ id: string; type: string; created_at: Date }[]>(eventColumns);
    const deliveries = await db('webhook_deliveries')
      .where({ organization_id: organizationId, request_id: q })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .limit(LIMIT)
      .select<DeliveryRow[]>(deliveryColumns);
    return [...events.map((e) => toEvent(e, 'request id')), ...deliveries.map((d) => deliveryHit(d, 'request id'))];
  }
  return [];
}

/** Every exact match of `query` in the organisation, debts first; nothing for a blank query. */
export async function searchConsole(db: Db, organizationId: string, query: string): Promise<SearchHit[]> {
  const q = query.trim();
  if (q === '' || q.length > 320) return [];
  const found = await Promise.all([
    debts(db, organizationId, q),
    debtors(db, organizationId, q),
    eventsAndDeliveries(db, organizationId, q),
  ]);
  return found.flat();
}
