/**
 * The pace of an organisation's placements (core/placements/placement-pace.ts) is the organisation's, shared: its
 * `placement_rows_per_second` (else the default) divided evenly among its placements importing at that moment, each
 * chunk waiting out its share. Another organisation's placements, and this one's finished or still validating ones,
 * take no share. The rule is checked as the activity computes it, never by timing.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { chunkPauseMs, DEFAULT_ROWS_PER_SECOND, organizationPace } from '../../core/placements/placement-pace';
import { goodRows, PLACEMENT_HEADER, storePlacement } from '../support/placements';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('placements: the organisation’s pace, shared by its running imports', function () {
  let dir: string;
  let store: LocalDocumentStore;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'placement-pace-'));
    store = new LocalDocumentStore(dir);
  });
  after(async () => await rm(dir, { recursive: true, force: true }));

  async function placementIn(organizationId: string, status: string, n: number): Promise<string> {
    const file = [PLACEMENT_HEADER, ...goodRows(`P${n}`, 2)].join('\n');
    const { placementId } = await storePlacement(store, organizationId, file);
    await testDb()('placements').where({ id: placementId }).update({ status });
    return placementId;
  }

  it('divides the organisation’s rate among its importing placements only', async () => {
    const mine = (await createTestTenant()).organization.id;
    const other = (await createTestTenant()).organization.id;
    await testDb().raw('update organizations set placement_rows_per_second = 300 where id = ?', [mine]);
    expect(await organizationPace(testDb(), mine)).to.deep.equal({ rowsPerSecond: 300, importing: 1 });

    await placementIn(mine, 'Importing', 1);
    await placementIn(mine, 'Validating', 2);
    await placementIn(mine, 'Completed', 3);
    await placementIn(other, 'Importing', 4);
    await placementIn(other, 'Importing', 5);
    expect(await organizationPace(testDb(), mine)).to.deep.equal({ rowsPerSecond: 300, importing: 1 });

    const second = await placementIn(mine, 'Importing', 6);
    expect(await organizationPace(testDb(), mine)).to.deep.equal({ rowsPerSecond: 300, importing: 2 });
    // The other organisation has no rate of its own: the default, shared by its two.
    expect(await organizationPace(testDb(), other)).to.deep.equal({
      rowsPerSecond: DEFAULT_ROWS_PER_SECOND,
      importing: 2,
    });

    // One finishing hands its share back.
    await testDb()('placements').where({ id: second }).update({ status: 'Completed' });
    expect(await organizationPace(testDb(), mine)).to.deep.equal({ rowsPerSecond: 300, importing: 1 });
  });

  it('makes each chunk wait out its share: two running placements each take twice as long a chunk', () => {
    const alone = { rowsPerSecond: 500, importing: 1 };
    const shared = { rowsPerSecond: 500, importing: 2 };
    expect(chunkPauseMs(500, alone, 0)).to.equal(1_000);
    expect(chunkPauseMs(500, shared, 0)).to.equal(2_000);
    // The chunk's own time counts towards its share; a chunk slower than its share waits not at all.
    expect(chunkPauseMs(500, shared, 1_500)).to.equal(500);
    expect(chunkPauseMs(500, shared, 2_500)).to.equal(0);
    // Together the organisation's placements keep its rate: n placements, each at rate / n.
    for (const importing of [1, 2, 3, 5]) {
      const perPlacement = 500 / (chunkPauseMs(500, { rowsPerSecond: 500, importing }, 0) / 1000);
      expect(perPlacement * importing).to.be.closeTo(500, 0.001);
    }
  });
});
