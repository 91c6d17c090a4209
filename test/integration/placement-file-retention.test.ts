/**
 * Retention of placement files (core/placements/file-retention.ts), run by the retention purge's pass: a placement
 * finished more than 30 days ago loses its stored file, keeping its row and its rows' problems (the API still
 * answers both); a placement finished since, a running one and another mode's are left alone; an object another
 * placement still needs (the same bytes: keys are content addresses) stays until that one's time comes.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { ObjectMissingError } from '../../core/documents/store';
import { sweepOrphanObjects } from '../../core/documents/orphan-sweep';
import { PLACEMENT_FILE_RETENTION_DAYS } from '../../core/placements/file-retention';
import { getPlacement, listRowErrors, recordRowProblems } from '../../core/placements/placements';
import { purgeExpiredRows } from '../../core/retention/purge';
import { goodRows, PLACEMENT_HEADER, storePlacement } from '../support/placements';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('retention: placement files', function () {
  this.timeout(30_000);
  let dir: string;
  let store: LocalDocumentStore;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'placement-retention-'));
    store = new LocalDocumentStore(dir);
  });
  after(async () => await rm(dir, { recursive: true, force: true }));

  /** A placement of `text` that finished `daysAgo` days ago (null: still importing). */
  async function placement(organizationId: string, text: string, daysAgo: number | null) {
    const ref = await storePlacement(store, organizationId, text);
    await testDb()('placements')
      .where({ id: ref.placementId })
      .update(
        daysAgo === null
          ? { status: 'Importing' }
          : {
              status: 'CompletedWithErrors',
              completed_at: testDb().raw(`now() - make_interval(days => ?)`, [daysAgo]),
            },
      );
    const { storage_key: key } = await testDb()('placements')
      .where({ id: ref.placementId })
      .first<{ storage_key: string }>('storage_key');
    return { ...ref, key };
  }

  const stored = async (key: string) =>
    store.get(key).then(
      (stream) => (stream.destroy(), true),
      (err: unknown) => {
        if (err instanceof ObjectMissingError) return false;
        throw err;
      },
    );
  const fileDeletedAt = async (id: string) =>
    (await testDb()('placements').where({ id }).first<{ file_deleted_at: Date | null }>('file_deleted_at'))
      ?.file_deleted_at ?? null;
  const file = (prefix: string) => [PLACEMENT_HEADER, ...goodRows(prefix, 2)].join('\n');

  it('deletes the file of a placement finished over 30 days ago, keeping the placement and its errors', async () => {
    expect(PLACEMENT_FILE_RETENTION_DAYS).to.equal(30);
    const org = (await createTestTenant()).organization.id;
    const expired = await placement(org, file('X'), 31);
    await recordRowProblems(testDb(), org, expired.placementId, [
      { row: 2, outcome: 'failed', field: 'originalPrincipal', code: 'invalid_principal', message: 'bad' },
    ]);
    const recent = await placement(org, file('Y'), 29);
    const running = await placement(org, file('Z'), null);
    const sandbox = (await createTestTenant({ mode: 'sandbox' })).organization.id;
    const otherMode = await placement(sandbox, file('S'), 90);

    const report = await purgeExpiredRows({ db: testDb(), mode: 'production', documents: store, organizationId: org });
    expect(report.placementFiles).to.equal(1);
    expect(await stored(expired.key)).to.equal(false);
    expect(await fileDeletedAt(expired.placementId)).to.be.instanceOf(Date);
    // The record and its errors stay.
    expect(await getPlacement(testDb(), org, expired.placementId)).to.include({ status: 'CompletedWithErrors' });
    const errors = await listRowErrors(testDb(), org, expired.placementId, { limit: 10 });
    expect(errors!.data.map((e) => e.code)).to.deep.equal(['invalid_principal']);
    // The rest are kept.
    for (const kept of [recent, running]) {
      expect(await stored(kept.key)).to.equal(true);
      expect(await fileDeletedAt(kept.placementId)).to.equal(null);
    }
    await purgeExpiredRows({ db: testDb(), mode: 'production', documents: store, organizationId: sandbox });
    expect(await stored(otherMode.key), 'a production pass leaves sandbox files').to.equal(true);
    // A second pass has nothing more to do.
    const again = await purgeExpiredRows({ db: testDb(), mode: 'production', documents: store, organizationId: org });
    expect(again.placementFiles).to.equal(0);
  });

  it('reads the finished placements whose file is kept through an index of their own', async () => {
    const { rows } = await testDb().raw<{ rows: { indexdef: string }[] }>(
      `select indexdef from pg_indexes where tablename = 'placements'`,
    );
    expect(rows.map((row) => row.indexdef.replace(/^.* USING btree /, ''))).to.include(
      '(completed_at) WHERE ((file_deleted_at IS NULL) AND (completed_at IS NOT NULL))',
    );
  });

  it('keeps an object another placement still needs, and deletes it once that one’s time comes', async () => {
    const org = (await createTestTenant()).organization.id;
    const text = file('SAME');
    const old = await placement(org, text, 40); // a check, say
    const newer = await placement(org, text, 5); // its file imported since: the same stored object
    expect(newer.key).to.equal(old.key);

    const pass = () => purgeExpiredRows({ db: testDb(), mode: 'production', documents: store, organizationId: org });
    expect((await pass()).placementFiles).to.equal(1);
    expect(await fileDeletedAt(old.placementId)).to.be.instanceOf(Date);
    expect(await stored(old.key), 'the newer placement still needs it').to.equal(true);
    // Nor is it an orphan to the sweep while the newer placement keeps it.
    await sweepOrphanObjects({ db: testDb(), store }, { graceMs: 0 });
    expect(await stored(old.key)).to.equal(true);

    await testDb()('placements')
      .where({ id: newer.placementId })
      .update({ completed_at: testDb().raw(`now() - make_interval(days => 31)`) });
    expect((await pass()).placementFiles).to.equal(1);
    expect(await stored(old.key)).to.equal(false);
  });

  it('leaves a file whose placement lost it to an interrupted pass to the orphan sweep', async () => {
    const org = (await createTestTenant()).organization.id;
    const expired = await placement(org, file('CRASH'), 45);
    // As a pass that committed its mark and stopped before deleting the object.
    await testDb()('placements').where({ id: expired.placementId }).update({ file_deleted_at: testDb().fn.now() });
    expect(await stored(expired.key)).to.equal(true);
    await sweepOrphanObjects({ db: testDb(), store }, { graceMs: 0 });
    expect(await stored(expired.key)).to.equal(false);
  });
});
