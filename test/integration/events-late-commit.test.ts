/**
 * GET /v1/events never misses an event whose transaction commits late: events are listed by outbox position and only
 * below the horizon, so an event appears only once nothing can be written before it, and always above what a client
 * has already read. Two overlapping transactions on the real database show it.
 */
import { expect } from 'chai';
import { recordEvent, type EventEnvelope } from '../../core/events/outbox';
import { useApiSuite } from '../support/api-suite';
import { testDb } from '../support/resources';

interface EventPage {
  data: EventEnvelope[];
  nextCursor: string | null;
}

describe('GET /v1/events and transactions that commit late', () => {
  const ctx = useApiSuite();

  const listIds = async (query = '') =>
    (await ctx.api<EventPage>('GET', `/v1/events${query}`)).body.data.map((e) => e.id);
  const raise = async (trx: Parameters<typeof recordEvent>[0]) =>
    (await recordEvent(trx, ctx.tenant.organization.id, 'test.ping', {})).id;

  it('lists an event written first but committed last above everything read before, never below it', async () => {
    const seen = await testDb().transaction((trx) => raise(trx));
    expect(await listIds()).to.deep.equal([seen]);

    const slow = await testDb().transaction(); // starts first, commits last
    try {
      const late = await raise(slow);
      const quick = await testDb().transaction((trx) => raise(trx));
      // The quick event is committed, but the slow transaction could still write before it: neither is listed yet.
      expect(await listIds()).to.deep.equal([seen]);
      await slow.commit();
      expect(await listIds()).to.deep.equal([quick, late, seen]);
    } finally {
      if (!slow.isCompleted()) await slow.rollback();
    }
  });

  it('pages by position with no gap and no repeat', async () => {
    const raised: string[] = [];
    for (let i = 0; i < 5; i++) raised.push(await testDb().transaction((trx) => raise(trx)));
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page: EventPage = (await ctx.api<EventPage>('GET', `/v1/events${query}`)).body;
      walked.push(...page.data.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(walked).to.deep.equal([...raised].reverse());
  });
});
