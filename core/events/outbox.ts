/**
 * Events and the outbox (DECISIONS.md §4): an event is inserted by the same transaction as the change that caused
 * it, so a committed change always has its event and a rolled-back one never does. The webhook relay reads the
 * undispatched rows; `GET /v1/events` reads them all.
 */
import type { Trx } from '../platform/db';
import { newEventId } from '../platform/ids';

export const EVENT_TYPES = [
  'debt.created',
  'debt.updated',
  'debt.accepted',
  'debt.disputed',
  'payment.received',
  'plan.activated',
  'plan.defaulted',
  'test.ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The envelope of spec §6, exactly as delivered and as listed. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  createdAt: string;
  data: Record<string, unknown>;
}

/** A row of `events`. `txid` (xid8, as text) and `seq` are its outbox position, set by the database. */
export interface EventRow {
  id: string;
  organization_id: string;
  type: EventType;
  data: Record<string, unknown>;
  created_at: Date;
  txid: string;
  seq: number;
}

export function toEventEnvelope(row: Pick<EventRow, 'id' | 'type' | 'created_at' | 'data'>): EventEnvelope {
  return { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), data: row.data };
}

/**
 * Records an event in the transaction that makes the change: that is what makes the outbox atomic, so it takes a
 * `Trx`, never the pool.
 * `data` holds resources as the API returns them (e.g. `{ debt }`).
 */
export async function recordEvent(
  trx: Trx,
  organizationId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<EventEnvelope> {
  const [row] = await trx('events')
    .insert({ id: newEventId(), organization_id: organizationId, type, data })
    .returning(['id', 'type', 'data', 'created_at']);
  if (!row) throw new Error('insert into events returned no row');
  return toEventEnvelope(row);
}
