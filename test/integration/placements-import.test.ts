/**
 * A placement's validation and chunked import (core/placements) against the real database and a local store: the
 * good rows become debts with their `debt.created` events, the bad ones are listed by row number with the codes and
 * words `POST /v1/debts` answers; a re-sent file skips every account naming its open debt; two attempts at the same
 * chunk raise each debt once; a CSV's quoting, NDJSON's exact principals and a header's unknown columns.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createDebtRowChecker } from '../../api/http/debt-row-check';
import { createDebt } from '../../core/debts/debt-creation';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { newId } from '../../core/platform/ids';
import { headerProblems } from '../../core/placements/placement-columns';
import { PLACEMENT_FILES } from '../../core/placements/placement-files';
import { importChunk, TRANSACTION_ROWS } from '../../core/placements/chunk-import';
import { finish } from '../../core/placements/placement-end';
import { validatePlacement } from '../../core/placements/placement-validation';
import type { PlacementRef, PlacementWorkDeps } from '../../core/placements/placement-work';
import { getPlacement, insertPlacement, listRowErrors } from '../../core/placements/placements';
import { readHeader, type PlacementFormat } from '../../core/placements/row-reader';
import { inlineDebtBody } from '../support/debt-api';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';
import { configureReceiver, localWebhookConfig } from '../support/webhooks';

const HEADER =
  'externalAccountId,originalPrincipal,currency,debtorReferenceId,debtorFirstName,debtorLastName,debtorEmail,metadata.crmId';

describe('placements: validation and chunked import', function () {
  let dir: string;
  let deps: PlacementWorkDeps;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'placements-'));
    deps = { db: testDb(), store: new LocalDocumentStore(dir), checkRow: createDebtRowChecker() };
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function place(text: string, format: PlacementFormat = 'csv', validateOnly = false): Promise<PlacementRef> {
    const tenantId = (await createTestTenant()).organization.id;
    return placeFor(tenantId, text, format, validateOnly);
  }

  async function placeFor(
    organizationId: string,
    text: string,
    format: PlacementFormat = 'csv',
    validateOnly = false,
  ): Promise<PlacementRef> {
    const stored = await deps.store.put(organizationId, Readable.from([Buffer.from(text)]), 50 * 1024 * 1024);
    const columns = format === 'csv' ? await readHeader(await deps.store.get(stored.key), 'csv') : null;
    const id = newId();
    await testDb().transaction((trx) =>
      insertPlacement(trx, organizationId, { id, format, fileName: 'accounts', validateOnly, columns, stored }),
    );
    return { organizationId, placementId: id };
  }

  async function importAll(ref: PlacementRef, chunkRows: number): Promise<void> {
    await validatePlacement(deps, ref);
    for (let i = 0; i < 100; i++) if ((await importChunk(deps, ref, chunkRows)).done) break;
    await finish(testDb(), ref);
  }

  /** The placement as the API reads it has these fields. */
  async function expectPlacement(ref: PlacementRef, fields: Record<string, unknown>): Promise<void> {
    expect(await getPlacement(testDb(), ref.organizationId, ref.placementId)).to.include(fields);
  }

  async function debtsOf(organizationId: string) {
    return testDb()('debts').where({ organization_id: organizationId }).orderBy('external_account_id');
  }

  it('imports the good rows and lists the bad ones by row number, in the words of POST /v1/debts', async () => {
    const ref = await place(
      [
        HEADER,
        'A-1,100.50,AUD,D-1,Ava,Harris,ava@example.com,C-1',
        'A-2,-5,AUD,D-2,Bo,Li,bo@example.com,',
        'A-3,"1,000",AUD,D-3,Cy,Ng,cy@example.com,',
        'A-4,20,AUD,D-4,Di,"O\'Brien, Jr",,',
        '"A-5",7,AUD,D-5,Ed,"Line\nBreak",ed@example.com,C-5',
        'A-6,8,AUD,D-6,Fay,Ho,not-an-email,',
        'A-7,9',
      ].join('\r\n'),
    );
    await importAll(ref, 2);
    const placement = await getPlacement(testDb(), ref.organizationId, ref.placementId);
    expect(placement).to.include({ status: 'CompletedWithErrors', rows: 7, imported: 2, skipped: 0, failed: 5 });
    const debts = await debtsOf(ref.organizationId);
    expect(debts.map((d: { external_account_id: string }) => d.external_account_id)).to.deep.equal(['A-1', 'A-5']);
    expect(debts[0]!.metadata).to.deep.equal({ crmId: 'C-1' });
    const events = await testDb()('events').where({ organization_id: ref.organizationId, type: 'debt.created' });
    expect(events).to.have.length(2);
    const listed = await listRowErrors(testDb(), ref.organizationId, ref.placementId, { limit: 50 });
    const byRow = listed!.data.map((e) => [e.row, e.field, e.code]);
    expect(byRow).to.deep.equal([
      [3, 'originalPrincipal', 'invalid_principal'],
      [4, 'originalPrincipal', 'invalid_principal'],
      [5, 'debtorEmail', 'missing_debtor'],
      [7, 'debtorEmail', 'invalid_request'],
      [8, null, 'invalid_request'],
    ]);
    expect(listed!.data[3]!.message).to.equal('is not in the expected form (see this field in the API reference)');
    expect(listed!.data[4]!.message).to.equal('has 2 values; the header has 8 columns');
  });

  it('skips every account of a file sent again, naming its open debt', async () => {
    const text = [HEADER, 'B-1,10,AUD,E-1,Ava,Harris,ava@example.com,', 'B-2,11,AUD,E-2,Bo,Li,bo@example.com,'].join(
      '\n',
    );
    const first = await place(text);
    await importAll(first, 10);
    const again = await placeFor(first.organizationId, text);
    await importAll(again, 10);
    await expectPlacement(again, { status: 'Completed', imported: 0, skipped: 2, failed: 0 });
    const debts = await debtsOf(first.organizationId);
    expect(debts).to.have.length(2);
    const listed = await listRowErrors(testDb(), again.organizationId, again.placementId, { limit: 50 });
    expect(listed!.data.map((e) => [e.row, e.outcome, e.code, e.existingDebtId])).to.deep.equal([
      [2, 'skipped', 'external_account_id_in_use', debts[0]!.id],
      [3, 'skipped', 'external_account_id_in_use', debts[1]!.id],
    ]);
  });

  it('imports a chunk’s new accounts around one raised meanwhile, each once, and skips that one alone', async () => {
    const rows = Array.from({ length: 9 }, (_, i) => `G-${i},7,AUD,H-${i},Ann,Lee,ann${i}@example.com,`);
    const ref = await place([HEADER, ...rows].join('\n'));
    await validatePlacement(deps, ref);
    // Row 6 (G-4) is raised by another request after the validation, before its chunk runs.
    await importAll(await placeFor(ref.organizationId, [HEADER, rows[4]].join('\n')), 10);
    while (!(await importChunk(deps, ref, 10)).done);
    await finish(testDb(), ref);
    await expectPlacement(ref, { status: 'Completed', imported: 8, skipped: 1, failed: 0 });
    const debts = await debtsOf(ref.organizationId);
    expect(debts.map((d: { external_account_id: string }) => d.external_account_id)).to.deep.equal(
      rows.map((r) => r.split(',')[0]),
    );
    const events = await testDb()('events')
      .where({ organization_id: ref.organizationId, type: 'debt.created' })
      .count<{ count: string }[]>({ count: '*' });
    expect(Number(events[0]!.count)).to.equal(9);
    const listed = await listRowErrors(testDb(), ref.organizationId, ref.placementId, { limit: 50 });
    expect(listed!.data.map((e) => [e.row, e.outcome, e.code])).to.deep.equal([
      [6, 'skipped', 'external_account_id_in_use'],
    ]);
  });

  it('commits a chunk a hundred rows at a time, so no transaction holds the outbox back for the whole chunk', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => `K-${i},5,AUD,L-${i},Ann,Lee,ann${i}@example.com,`);
    const ref = await place([HEADER, ...rows].join('\n'));
    await validatePlacement(deps, ref);
    // Where the placement stood after each transaction of the chunk committed.
    const positions: number[] = [];
    const db = testDb();
    const counting = new Proxy(db, {
      get: (target, key, receiver) =>
        key === 'transaction'
          ? async (work: Parameters<typeof db.transaction>[0]) => {
              const result: unknown = await target.transaction(work);
              positions.push((await getPlacement(db, ref.organizationId, ref.placementId))!.imported);
              return result;
            }
          : (Reflect.get(target, key, receiver) as unknown),
    });
    const chunk = await importChunk({ ...deps, db: counting }, ref, 300);
    expect(chunk).to.deep.include({ done: true, rows: 250 });
    expect(positions).to.deep.equal([TRANSACTION_ROWS, 2 * TRANSACTION_ROWS, 250]);
    expect(await debtsOf(ref.organizationId)).to.have.length(250);
  });

  it('raises each debt once when two attempts run the same chunk', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `C-${i},5,AUD,F-${i},Ann,Lee,ann${i}@example.com,`);
    const ref = await place([HEADER, ...rows].join('\n'));
    await validatePlacement(deps, ref);
    const [a, b] = await Promise.all([importChunk(deps, ref, 20), importChunk(deps, ref, 20)]);
    expect([a.rows, b.rows].sort()).to.deep.equal([0, 20]);
    while (!(await importChunk(deps, ref, 20)).done);
    await finish(testDb(), ref);
    await expectPlacement(ref, { status: 'Completed', imported: 30, skipped: 0 });
    expect(await debtsOf(ref.organizationId)).to.have.length(30);
  });

  it('reads NDJSON with principals exactly as written, and refuses a line that is no object', async () => {
    const ref = await place(
      [
        '{"externalAccountId":"N-1","originalPrincipal":0.1000000000000000055,"debtorReferenceId":"G-1","debtorFirstName":"A","debtorLastName":"B","debtorPhone":"+61412345678"}',
        '',
        '{"externalAccountId":"N-2","originalPrincipal":12.5,"debtorReferenceId":"G-2","debtorFirstName":"A","debtorLastName":"B","debtorPhone":"+61412345679","metadata":{"crmId":"X"}}',
        '[1,2]',
        '{"externalAccountId":"N-3","originalPrincipal":1,"unknown":true}',
      ].join('\n'),
      'ndjson',
    );
    await importAll(ref, 10);
    await expectPlacement(ref, { rows: 4, imported: 1, failed: 3 });
    const listed = await listRowErrors(testDb(), ref.organizationId, ref.placementId, { limit: 50 });
    expect(listed!.data.map((e) => [e.row, e.field, e.code])).to.deep.equal([
      [1, 'originalPrincipal', 'invalid_principal'],
      [4, null, 'invalid_request'],
      [5, 'unknown', 'invalid_request'],
    ]);
  });

  it('a dry run checks every row and imports nothing', async () => {
    const ref = await place(
      [HEADER, 'D-1,10,AUD,H-1,A,B,a@example.com,', 'D-2,x,AUD,H-2,A,B,b@example.com,'].join('\n'),
      'csv',
      true,
    );
    expect(await validatePlacement(deps, ref)).to.include({ status: 'CompletedWithErrors', rows: 2, failed: 1 });
    expect(await importChunk(deps, ref, 10)).to.include({ done: true, rows: 0 });
    expect(await debtsOf(ref.organizationId)).to.have.length(0);
  });

  it('raises its debts as bulk work: their events and deliveries marked, a debt raised otherwise and its end not', async () => {
    const ref = await place(
      [HEADER, 'K-1,10,AUD,K-1,A,B,a@example.com,', 'K-2,11,AUD,K-2,C,D,c@example.com,'].join('\n'),
    );
    await configureReceiver(localWebhookConfig(), ref.organizationId, 'http://127.0.0.1:9/hooks');
    await importAll(ref, 10);
    await testDb().transaction((trx) =>
      createDebt(trx, ref.organizationId, inlineDebtBody({ externalAccountId: 'K-3', originalPrincipal: '12.00' })),
    );
    const events = await testDb()('events')
      .where({ organization_id: ref.organizationId })
      .select<{ id: string; type: string; bulk: boolean; account: string | null }[]>(
        'id',
        'type',
        'bulk',
        testDb().raw(`data -> 'debt' ->> 'externalAccountId' as account`),
      );
    const bulkOf = (e: { type: string; account: string | null }) => `${e.type} ${e.account ?? ''}`.trim();
    expect(events.filter((e) => e.bulk).map(bulkOf)).to.have.members(['debt.created K-1', 'debt.created K-2']);
    expect(events.filter((e) => !e.bulk).map(bulkOf)).to.have.members(['placement.completed', 'debt.created K-3']);
    const deliveries = await testDb()('webhook_deliveries')
      .where({ organization_id: ref.organizationId })
      .select<{ event_id: string; bulk: boolean }[]>('event_id', 'bulk');
    expect(deliveries).to.have.length(4);
    for (const delivery of deliveries) {
      expect(delivery.bulk, 'a delivery is bulk as its event is').to.equal(
        events.find((e) => e.id === delivery.event_id)!.bulk,
      );
    }
  });

  it('fails a file that cannot be read on, with placement.failed; a finished one sends placement.completed', async () => {
    const broken = await place(
      [HEADER, 'E-1,10,AUD,I-1,A,B,a@example.com,', 'E-2,"11,AUD,I-2,A,B,b@example.com,'].join('\n'),
    );
    expect(await validatePlacement(deps, broken)).to.include({ status: 'Failed' });
    const placement = await getPlacement(testDb(), broken.organizationId, broken.placementId);
    expect(placement!.failureReason).to.match(/^The file is not valid CSV/);
    const events = await testDb()('events').where({ organization_id: broken.organizationId }).select('type', 'data');
    expect(events).to.deep.equal([{ type: 'placement.failed', data: { placement } }]);

    const good = await place([HEADER, 'E-3,10,AUD,I-3,A,B,a@example.com,'].join('\n'));
    await importAll(good, 10);
    const done = await getPlacement(testDb(), good.organizationId, good.placementId);
    const ended = await testDb()('events').where({ organization_id: good.organizationId, type: 'placement.completed' });
    expect(ended.map((e: { data: unknown }) => e.data)).to.deep.equal([{ placement: done }]);
  });

  it('accepts the template’s and the example’s every row as POST /v1/debts would', async () => {
    const example = PLACEMENT_FILES['example.csv'];
    expect(example.startsWith(PLACEMENT_FILES['template.csv'])).to.equal(true);
    const ref = await place(example, 'csv', true);
    expect(await validatePlacement(deps, ref)).to.include({ status: 'Completed', rows: 4, failed: 0 });
  });

  it('names a header’s unknown and repeated columns', () => {
    expect(
      headerProblems(['externalAccountId', 'principal', 'metadata.crmId', 'metadata.', 'currency', 'currency']),
    ).to.deep.equal([
      { column: 'principal', message: 'is not a field of POST /v1/debts' },
      { column: 'metadata.', message: 'names no metadata key' },
      { column: 'currency', message: 'appears more than once' },
    ]);
  });
});
