/** Reading the events of an organisation (GET /v1/events): the outbox doubles as the client's event log. */
import type { Db } from './db';
import { toEventEnvelope, type EventEnvelope, type EventRow, type EventType } from './events';
import { isEventId } from './ids';
import { fetchPage, type Page, type PageRequest } from './pagination';

export async function listEvents(
  db: Db,
  organizationId: string,
  type: EventType | undefined,
  page: PageRequest,
): Promise<Page<EventEnvelope>> {
  const query = db<EventRow>('events').where({ organization_id: organizationId });
  if (type) void query.andWhere({ type });
  return fetchPage<EventRow, EventEnvelope>(
    query,
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
