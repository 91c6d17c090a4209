/**
 * The list routes send JSON that PostgreSQL writes (core/platform/json-page.ts). These tests hold it to the old
 * serialiser: for varied rows (nulls, plans, trailing zeros, every currency precision, unicode and control
 * characters, every status), every page is byte for byte what `JSON.stringify({ data, nextCursor })` of the rows
 * shaped in Node (`toDebt`, `toEventEnvelope` with the request id, `toDeliveryView`) wrote, cursors included.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { DEBT_STATUSES, PLAN_FREQUENCIES, PLAN_STATUSES } from '../../core/debts/debt-status';
import { debtColumns, listDebts, toDebt, type DebtRow } from '../../core/debts/debts';
import { decodeEventCursor, encodeEventCursor, listEvents } from '../../core/events/event-list';
import { toEventEnvelope, type EventRow } from '../../core/events/outbox';
import { decodeCursor, encodeCursor, type PageRequest } from '../../core/platform/pagination';
import { listDeliveries, toDeliveryView, type DeliveryRow } from '../../core/webhooks/deliveries';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

const TEXTS = ['plain', 'Zoë “quoted” \\ back\\slash', 'emoji 💸 and 中文', 'tab\tnew\nline\r\u0001\u001f\u007f', '"'];
const AMOUNTS: [string, string][] = [
  ['1250.5000', 'AUD'],
  ['1000', 'AUD'],
  ['0.01', 'AUD'],
  ['9999999999999.99', 'AUD'],
  ['1250', 'JPY'],
  ['12.345', 'BHD'],
  ['0.001', 'KWD'],
  ['100.10', 'USD'],
  ['12.3456', 'AUD'], // more decimals than AUD has: the wire rounds to cents
  ['12.3350', 'AUD'],
];

/** Walks every page of a list with `limit`, checking each against the old serialiser's bytes. */
async function comparePages(
  newPage: (page: PageRequest) => Promise<{ toText(): string; nextCursor: string | null }>,
  oldPage: (page: PageRequest) => Promise<string>,
  limit: number,
): Promise<number> {
  let cursor: string | undefined;
  let pages = 0;
  do {
    const fresh = await newPage({ limit, cursor });
    expect(fresh.toText()).to.equal(await oldPage({ limit, cursor }));
    cursor = fresh.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  return pages;
}

/** The rows the old code read, `limit` + 1 of them past `after`, newest first. */
function pageOf<Row>(rows: Row[], limit: number): { items: Row[]; hasMore: boolean } {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * The old serialiser of a list in created-at order (debts, deliveries): the keyset page read row by row, each row
 * shaped in Node by `toItem`, the page written by JSON.stringify.
 */
function oldCreatedAtPage<Row extends { created_at: Date; id: string }>(options: {
  table: string;
  list: string;
  organizationId: string;
  columns: (string | Knex.Raw)[];
  toItem: (row: Row) => unknown;
}): (page: PageRequest) => Promise<string> {
  const { table, list, organizationId, columns, toItem } = options;
  return async (page) => {
    const db = testDb();
    const after = page.cursor ? decodeCursor(list, page.cursor) : undefined;
    // knex's types cannot carry a selection through these clauses (core/platform/pagination.ts does the same).
    const found = (await db(table)
      .select(...columns)
      .where({ organization_id: organizationId })
      .whereRaw(after ? '(created_at, id) < (?, ?)' : 'true', after ? [after.createdAt, after.id] : [])
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit + 1)) as Row[];
    const { items, hasMore } = pageOf(found, page.limit);
    const last = items.at(-1);
    const nextCursor = hasMore && last ? encodeCursor(list, { createdAt: last.created_at, id: last.id }) : null;
    return JSON.stringify({ data: items.map(toItem), nextCursor });
  };
}

describe('List pages written by PostgreSQL match the Node serialiser byte for byte', () => {
  it('debts: nulls, plans, decimals with trailing zeros, currencies, unicode, every status', async () => {
    const db = testDb();
    const { organization } = await createTestTenant();
    const debtorId = randomUUID();
    await db('debtors').insert({
      id: debtorId,
      organization_id: organization.id,
      reference_id: 'R',
      first_name: 'A',
      last_name: 'B',
      email: 'a@example.com',
    });
    const rows = DEBT_STATUSES.flatMap((status, s) =>
      AMOUNTS.map(([amount, currency], a) => {
        const planned = (s + a) % 3 !== 0;
        return {
          id: randomUUID(),
          organization_id: organization.id,
          debtor_id: debtorId,
          // Unique per row: an account holds one open debt at a time.
          external_account_id: `${TEXTS[a % TEXTS.length]}-${s}-${a}`,
          client_reference: a % 2 === 0 ? null : TEXTS[(a + s) % TEXTS.length],
          original_principal: amount,
          outstanding_principal: a % 4 === 0 ? '0' : amount,
          currency,
          status,
          dispute_reason: status === 'Disputed' ? TEXTS[a % TEXTS.length] : null,
          plan_status: planned ? PLAN_STATUSES[a % PLAN_STATUSES.length] : null,
          plan_instalment_amount: planned ? amount : null,
          plan_frequency: planned ? PLAN_FREQUENCIES[a % PLAN_FREQUENCIES.length] : null,
          plan_instalment_count: planned ? 12 : null,
          plan_instalments_paid: planned ? a : null,
          plan_next_due_date: planned && a % 2 === 0 ? '2027-02-28' : null,
          // Integer-like keys go first in a JavaScript object, whatever the order they were written in.
          metadata: JSON.stringify(a % 3 === 0 ? {} : { text: TEXTS[(a + s) % TEXTS.length]!, '10': 'x', '2': 'y' }),
          // Some share a millisecond, so the id breaks ties in the order and the cursor.
          created_at: new Date(Date.UTC(2026, 10, 1, 0, 0, s, a % 3)),
          updated_at: new Date(Date.UTC(2026, 10, 2, 12, 30, a, 999)),
        };
      }),
    );
    await db('debts').insert(rows);
    const oldPage = oldCreatedAtPage<DebtRow>({
      table: 'debts',
      list: 'debts',
      organizationId: organization.id,
      columns: debtColumns(db),
      toItem: toDebt,
    });
    const pages = await comparePages((page) => listDebts(db, organization.id, { page }), oldPage, 7);
    expect(pages).to.equal(Math.ceil(rows.length / 7) + (rows.length % 7 === 0 ? 1 : 0));
  });

  it('events: data kept as written, unicode included', async () => {
    const db = testDb();
    const { organization } = await createTestTenant();
    for (const [i, text] of TEXTS.entries()) {
      await db.transaction((trx) =>
        trx('events').insert({
          id: `evt_${randomUUID().replace(/-/g, '')}`,
          organization_id: organization.id,
          type: i % 2 ? 'debt.created' : 'debt.updated',
          data: trx.raw('?::json', [
            JSON.stringify({ debt: { text, n: i, amount: 12.5, nested: [null, true, { a: text }] } }),
          ]),
          created_at: new Date(Date.UTC(2026, 10, 1, 0, 0, i, 7)),
          request_id: i % 3 ? `req_${randomUUID().replace(/-/g, '')}` : null,
        }),
      );
    }
    const oldPage = async (page: PageRequest) => {
      const after = page.cursor ? decodeEventCursor(page.cursor) : undefined;
      const found: EventRow[] = await db('events')
        .select<EventRow[]>('*')
        .where({ organization_id: organization.id })
        .whereRaw('txid < pg_snapshot_xmin(pg_current_snapshot())')
        .whereRaw(after ? '(txid, seq) < (?::xid8, ?)' : 'true', after ? [after.txid, after.seq] : [])
        .orderBy([
          { column: 'txid', order: 'desc' },
          { column: 'seq', order: 'desc' },
        ])
        .limit(page.limit + 1);
      const { items, hasMore } = pageOf(found, page.limit);
      const last = items.at(-1);
      const nextCursor = hasMore && last ? encodeEventCursor({ txid: last.txid, seq: last.seq }) : null;
      return JSON.stringify({
        data: items.map((r) => ({ ...toEventEnvelope(r), requestId: r.request_id })),
        nextCursor,
      });
    };
    // Events show below the horizon: wait until no transaction of another test holds them back.
    await waitFor(
      async () =>
        (JSON.parse((await listEvents(db, organization.id, undefined, { limit: 10 })).dataJson) as unknown[]).length ===
        5,
      { what: 'the five events below the horizon' },
    );
    expect(await comparePages((page) => listEvents(db, organization.id, undefined, page), oldPage, 2)).to.equal(3);
  });

  it('webhook deliveries: every status, attempt times null and set', async () => {
    const db = testDb();
    const { organization } = await createTestTenant();
    const statuses = ['Pending', 'Succeeded', 'Failed'] as const;
    for (let i = 0; i < 9; i++) {
      const eventId = `evt_${randomUUID().replace(/-/g, '')}`;
      await db('events').insert({
        id: eventId,
        organization_id: organization.id,
        type: 'debt.created',
        data: db.raw(`'{}'::json`),
      });
      await db('webhook_deliveries').insert({
        id: randomUUID(),
        organization_id: organization.id,
        event_id: eventId,
        event_type: 'debt.created',
        url: `https://example.com/hook/${TEXTS[i % TEXTS.length]}`,
        secret_iv: Buffer.alloc(1),
        secret_tag: Buffer.alloc(1),
        secret_ciphertext: Buffer.alloc(1),
        status: statuses[i % 3],
        attempt_count: i,
        last_attempt_at: i % 2 ? new Date(Date.UTC(2026, 10, 3, 1, 2, 3, i)) : null,
        next_attempt_at: i % 3 ? new Date(Date.UTC(2026, 10, 4, 1, 2, 3, 100 + i)) : null,
        created_at: new Date(Date.UTC(2026, 10, 1, 0, 0, i % 4, 0)),
        request_id: i % 2 ? null : `req_${randomUUID().replace(/-/g, '')}`,
      });
    }
    const oldPage = oldCreatedAtPage<DeliveryRow>({
      table: 'webhook_deliveries',
      list: 'webhook-deliveries',
      organizationId: organization.id,
      columns: ['*'],
      toItem: toDeliveryView,
    });
    const newPage = (page: PageRequest) => listDeliveries(db, organization.id, {}, page);
    expect(await comparePages(newPage, oldPage, 4)).to.equal(3);
  });
});
