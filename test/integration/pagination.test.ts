import { expect } from 'chai';
import { ApiError } from '../../core/platform/errors';
import { recordEvent, toEventEnvelope, type EventRow } from '../../core/events/outbox';
import { isEventId } from '../../core/platform/ids';
import { decodeCursor, encodeCursor, fetchPage, type Page } from '../../core/platform/pagination';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('Keyset pagination (core/pagination)', () => {
  async function page(organizationId: string, limit: number, cursor?: string): Promise<Page<string>> {
    const query = testDb()('events').where({ organization_id: organizationId }).select('*');
    return fetchPage(
      query,
      {
        list: 'events',
        page: { limit, cursor },
        createdAtColumn: 'events.created_at',
        idColumn: 'events.id',
        position: (row: EventRow) => ({ createdAt: row.created_at, id: row.id }),
        isValidId: isEventId,
      },
      (row: EventRow) => toEventEnvelope(row).data.n as string,
    );
  }

  async function seed(organizationId: string, labels: string[]): Promise<void> {
    // One transaction per event, as the API writes them: each gets its own created_at.
    for (const n of labels) await testDb().transaction((trx) => recordEvent(trx, organizationId, 'test.ping', { n }));
  }

  it('walks the whole list newest first, with no duplicates, and nextCursor null at the end', async () => {
    const { organization } = await createTestTenant();
    await seed(organization.id, ['1', '2', '3', '4', '5', '6', '7']);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const result = await page(organization.id, 3, cursor);
      seen.push(...result.data);
      sizes.push(result.data.length);
      cursor = result.nextCursor ?? undefined;
    } while (cursor);
    expect(sizes).to.deep.equal([3, 3, 1]);
    expect(seen).to.deep.equal(['7', '6', '5', '4', '3', '2', '1']);
  });

  it('is stable under concurrent inserts: new rows do not shift or repeat the pages still to come', async () => {
    const { organization } = await createTestTenant();
    await seed(organization.id, ['1', '2', '3', '4', '5']);
    const first = await page(organization.id, 2);
    await seed(organization.id, ['new-1', 'new-2', 'new-3']);
    const second = await page(organization.id, 2, first.nextCursor!);
    const third = await page(organization.id, 2, second.nextCursor!);
    expect([...first.data, ...second.data, ...third.data]).to.deep.equal(['5', '4', '3', '2', '1']);
    expect(third.nextCursor).to.equal(null);
  });

  it('gives an exact-fit last page a null nextCursor and an empty list an empty page', async () => {
    const { organization } = await createTestTenant();
    expect(await page(organization.id, 5)).to.deep.equal({ data: [], nextCursor: null });
    await seed(organization.id, ['1', '2']);
    expect(await page(organization.id, 2)).to.deep.equal({ data: ['2', '1'], nextCursor: null });
  });

  it('rejects malformed cursors and cursors of another list with 400 invalid_request', () => {
    const position = { createdAt: new Date(), id: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71' };
    const foreign = encodeCursor('debts', position);
    const notUuid = Buffer.from(JSON.stringify({ l: 'events', t: position.createdAt.toISOString(), i: 'x' })).toString(
      'base64url',
    );
    for (const bad of ['%%%', 'bm90IGpzb24', foreign, notUuid, '']) {
      expect(() => decodeCursor('events', bad), bad)
        .to.throw(ApiError)
        .with.property('code', 'invalid_request');
    }
    expect(decodeCursor('events', encodeCursor('events', position))).to.deep.equal(position);
  });
});
