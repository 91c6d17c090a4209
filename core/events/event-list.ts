/** Reading the events of an organisation (GET /v1/events): the outbox doubles as the client's event log. */
import type { Db } from '../platform/db';
import { toEventEnvelope, type EventEnvelope, type EventRow, type EventType } from './outbox';
import { isEventId } from '../platform/ids';
import { fetchPage, type Page, type PageRequest } from '../platform/pagination';

export async function listEvents(
  db: Db,
  organizationId: string,
  type: EventType | undefined,
  page: PageRequest,
): Promise<Page<EventEnvelope>> {
  return fetchPage<EventRow, EventEnvelope>(
    db('events').where({ organization_id: organizationId, ...(type && { type }) }),
    {
      list: 'events',
      page,
      createdAtColumn: 'created_at',
      idColumn: 'id',
      position: (row) => ({ createdAt: row.created_at, id: row.id }),
      isValidId: isEventId,
    },
    toEventEnvelope,
  );
}
