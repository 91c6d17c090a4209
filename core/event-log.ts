/** Reading the events of an organisation (GET /v1/events): the outbox doubles as the client's event log. */
import type { Db } from './db';
import { toEventEnvelope, type EventEnvelope, type EventRow, type EventType } from './events';
import { decodeCursor, fetchPage, type Page, type PageRequest } from './pagination';

const LIST = 'events';

// Cursors carry UUIDs; an event id is `evt_` + the hex of a UUID v7, so it converts both ways.
function eventIdToUuid(id: string): string {
  const hex = id.slice('evt_'.length);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function uuidToEventId(uuid: string): string {
  return `evt_${uuid.replace(/-/g, '')}`;
}

export async function listEvents(
  db: Db,
  organizationId: string,
  type: EventType | undefined,
  page: PageRequest,
): Promise<Page<EventEnvelope>> {
  const query = db<EventRow>('events').where({ organization_id: organizationId });
  if (type) void query.andWhere({ type });
  if (page.cursor) {
    const after = decodeCursor(LIST, page.cursor);
    void query.whereRaw('(created_at, id) < (?, ?)', [after.createdAt, uuidToEventId(after.id)]);
  }
  return fetchPage<EventRow, EventEnvelope>(
    query,
    {
      list: LIST,
      page: { limit: page.limit },
      createdAtColumn: 'created_at',
      idColumn: 'id',
      position: (row) => ({ createdAt: row.created_at, id: eventIdToUuid(row.id) }),
    },
    toEventEnvelope,
  );
}
