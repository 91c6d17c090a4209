/**
 * The documents service (core/documents/documents.ts) over both stores: upload, list and read back byte-for-byte;
 * a wrong type under a PDF name refused; 10 MiB + 1 byte refused; 50 per debt; another tenant's debt or document not
 * found; a crash between the object and the row leaves no visible document, and the sweep removes the object.
 * The debts come from the API (the suite's app); the documents from the service the routes, the console and the
 * portal call.
 */
import { expect } from 'chai';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  listDebtDocuments,
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENTS_PER_DEBT,
  openDebtDocument,
  type DocumentDeps,
} from '../../core/documents/documents';
import { uploadDocument } from '../../core/documents/document-upload';
import { sweepOrphanObjects } from '../../core/documents/orphan-sweep';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { S3DocumentStore } from '../../core/documents/s3-store';
import type { DocumentStore } from '../../core/documents/store';
import { ApiError } from '../../core/platform/errors';
import { purgeExpiredRows } from '../../core/retention/purge';
import { useApiSuite } from '../support/api-suite';
import { raiseDebt } from '../support/debt-api';
import { startOwnS3, type OwnS3 } from '../support/own-s3';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A PDF header followed by random bytes: recognised as a PDF by its first bytes. */
function pdfLike(size: number): Buffer {
  const bytes = randomBytes(size);
  bytes.write('%PDF-1.7\n', 0, 'latin1');
  return bytes;
}

function chunked(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 65_536) chunks.push(bytes.subarray(at, at + 65_536));
  return Readable.from(chunks);
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function objectCount(store: DocumentStore): Promise<number> {
  let n = 0;
  for await (const object of store.listObjects()) if (object.key) n += 1;
  return n;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return err instanceof ApiError ? err.code : String(err);
}

function documentsOnEitherStore(name: string, openStore: () => Promise<DocumentStore>): void {
  describe(`documents on the ${name} store`, function () {
    this.timeout(60_000);
    const ctx = useApiSuite();
    let store: DocumentStore;
    let deps: DocumentDeps;
    beforeEach(async () => {
      store = await openStore();
      deps = { db: testDb(), store };
    });

    it('uploads, lists and gives back the same bytes (SHA-256 equal)', async () => {
      const org = ctx.tenant.organization.id;
      const debt = await raiseDebt(ctx.api);
      const bytes = pdfLike(1024 * 1024 + 17);
      const doc = await uploadDocument(deps, org, debt.id, {
        body: chunked(bytes),
        fileName: '../../agreement.pdf',
        kind: 'Agreement',
        description: 'Signed agreement',
      });
      expect(doc).to.include({
        debtId: debt.id,
        kind: 'Agreement',
        description: 'Signed agreement',
        fileName: '../../agreement.pdf', // metadata only, never a path
        contentType: 'application/pdf',
        size: bytes.length,
        sha256: sha256(bytes),
      });
      const page = await listDebtDocuments(testDb(), org, debt.id, { limit: 10 });
      expect(page?.data).to.deep.equal([doc]);
      const opened = await openDebtDocument(deps, org, debt.id, doc.id);
      expect(opened?.document).to.deep.equal(doc);
      expect(sha256(await readAll(opened?.content ?? Readable.from([])))).to.equal(sha256(bytes));
    });

    it('recognises PNG and JPEG by their bytes and refuses anything else, whatever its name', async () => {
      const org = ctx.tenant.organization.id;
      const debt = await raiseDebt(ctx.api);
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(100)]);
      const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(100)]);
      expect(
        (await uploadDocument(deps, org, debt.id, { body: chunked(png), fileName: 'a.pdf' })).contentType,
      ).to.equal('image/png');
      expect((await uploadDocument(deps, org, debt.id, { body: chunked(jpeg), fileName: 'b' })).contentType).to.equal(
        'image/jpeg',
      );
      const before = await objectCount(store);
      const html = Buffer.from('<html><script>alert(1)</script></html>');
      expect(await codeOf(uploadDocument(deps, org, debt.id, { body: chunked(html), fileName: 'x.pdf' }))).to.equal(
        'unsupported_media_type',
      );
      expect(
        await codeOf(uploadDocument(deps, org, debt.id, { body: chunked(Buffer.from('%P')), fileName: 'y' })),
      ).to.equal('unsupported_media_type');
      expect(await objectCount(store)).to.equal(before);
      expect((await listDebtDocuments(testDb(), org, debt.id, { limit: 10 }))?.data).to.have.length(2);
    });

    it('refuses 10 MiB + 1 byte with payload_too_large and stores nothing; 10 MiB exactly is taken', async () => {
      const org = ctx.tenant.organization.id;
      const debt = await raiseDebt(ctx.api);
      const before = await objectCount(store);
      const code = await codeOf(
        uploadDocument(deps, org, debt.id, { body: chunked(pdfLike(MAX_DOCUMENT_BYTES + 1)), fileName: 'big.pdf' }),
      );
      expect(code).to.equal('payload_too_large');
      expect(await objectCount(store)).to.equal(before);
      const exact = await uploadDocument(deps, org, debt.id, {
        body: chunked(pdfLike(MAX_DOCUMENT_BYTES)),
        fileName: 'exact.pdf',
      });
      expect(exact.size).to.equal(MAX_DOCUMENT_BYTES);
    });

    it('another tenant’s debt or document is not found', async () => {
      const org = ctx.tenant.organization.id;
      const debt = await raiseDebt(ctx.api);
      const doc = await uploadDocument(deps, org, debt.id, { body: chunked(pdfLike(100)), fileName: 'a.pdf' });
      const other = (await createTestTenant()).organization.id;
      expect(await listDebtDocuments(testDb(), other, debt.id, { limit: 10 })).to.equal(undefined);
      expect(await openDebtDocument(deps, other, debt.id, doc.id)).to.equal(undefined);
      expect(await openDebtDocument(deps, org, randomUUID(), doc.id)).to.equal(undefined);
      expect(
        await codeOf(uploadDocument(deps, other, debt.id, { body: chunked(pdfLike(100)), fileName: 'a.pdf' })),
      ).to.equal('not_found');
    });

    it('a crash between the object and the row leaves no visible document, and the sweep removes the object', async () => {
      const org = ctx.tenant.organization.id;
      const debt = await raiseDebt(ctx.api);
      const kept = await uploadDocument(deps, org, debt.id, { body: chunked(pdfLike(2000)), fileName: 'kept.pdf' });
      const crashing = {
        ...deps,
        afterStored: () => Promise.reject(new Error('crash after the object, before the row')),
      };
      const crashed = await codeOf(
        uploadDocument(crashing, org, debt.id, { body: chunked(pdfLike(3000)), fileName: 'c' }),
      );
      expect(crashed).to.match(/crash after the object/);
      expect((await listDebtDocuments(testDb(), org, debt.id, { limit: 10 }))?.data.map((d) => d.id)).to.deep.equal([
        kept.id,
      ]);
      const before = await objectCount(store);
      expect(await sweepOrphanObjects(deps)).to.equal(0); // within the grace period: may be an upload in progress
      expect(await sweepOrphanObjects(deps, { now: new Date(Date.now() + 2 * 60 * 60_000) })).to.be.at.least(1);
      expect(await objectCount(store)).to.be.below(before);
      const opened = await openDebtDocument(deps, org, debt.id, kept.id);
      expect(sha256(await readAll(opened?.content ?? Readable.from([])))).to.equal(kept.sha256);
    });

    it(`holds at most ${MAX_DOCUMENTS_PER_DEBT} documents per debt`, async () => {
      const org = ctx.tenant.organization.id;
      const debt = await raiseDebt(ctx.api);
      for (let i = 0; i < MAX_DOCUMENTS_PER_DEBT; i += 1) {
        await uploadDocument(deps, org, debt.id, { body: chunked(pdfLike(64)), fileName: `${i}.pdf` });
      }
      expect(
        await codeOf(uploadDocument(deps, org, debt.id, { body: chunked(pdfLike(64)), fileName: 'x.pdf' })),
      ).to.equal('document_limit_reached');
    });

    it(`holds at most ${MAX_DOCUMENTS_PER_DEBT} documents per debt when the last uploads race each other`, async () => {
      const org = ctx.tenant.organization.id;
      const debt = await raiseDebt(ctx.api);
      const first = await uploadDocument(deps, org, debt.id, { body: chunked(pdfLike(64)), fileName: 'first.pdf' });
      const row = await testDb()('documents').where({ id: first.id }).first();
      if (!row) throw new Error('the first document has no row');
      const room = 5;
      const copies = Array.from({ length: MAX_DOCUMENTS_PER_DEBT - room - 1 }, () => ({ ...row, id: randomUUID() }));
      await testDb()('documents').insert(copies);
      // Every one of these passes the check before its file is read; the row's insert decides, under the debt's lock.
      const outcomes = await Promise.allSettled(
        Array.from({ length: room * 2 }, (_, i) =>
          uploadDocument(deps, org, debt.id, { body: chunked(pdfLike(64)), fileName: `race-${i}.pdf` }),
        ),
      );
      const refusals = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(room);
      expect(refusals.map((err) => (err instanceof ApiError ? err.code : String(err)))).to.deep.equal(
        Array.from({ length: room }, () => 'document_limit_reached'),
      );
      const counted = await testDb()('documents').where({ debt_id: debt.id }).count({ n: '*' });
      expect(Number(counted[0]?.n)).to.equal(MAX_DOCUMENTS_PER_DEBT);
    });
  });
}

let dir = '';
let s3: OwnS3 | undefined;
let run = 0;

before(async function () {
  this.timeout(30_000);
  dir = await mkdtemp(path.join(tmpdir(), 'documents-service-'));
  s3 = await startOwnS3();
});
after(async () => {
  await s3?.destroy();
  await rm(dir, { recursive: true, force: true });
});

// Each test gets an empty store (a fresh directory or prefix), so the sweep sees only what the test left.
documentsOnEitherStore('local filesystem', () => {
  run += 1;
  return Promise.resolve(new LocalDocumentStore(path.join(dir, `run${run}`)));
});
documentsOnEitherStore('S3 (versitygw)', () => {
  if (!s3) throw new Error('no S3 server');
  run += 1;
  return Promise.resolve(new S3DocumentStore({ ...s3.storeConfig, prefix: `run${run}/` }));
});

describe('documents in the retention purge', function () {
  this.timeout(60_000);

  it('a purge pass given the mode’s store sweeps orphan objects past the grace period, and no named object', async () => {
    const root = path.join(dir, 'purge');
    const store = new LocalDocumentStore(root);
    const tenant = await createTestTenant();
    const org = tenant.organization.id;
    const orphan = await store.put(org, chunked(pdfLike(500)), 10_000);
    const young = await store.put(org, chunked(pdfLike(600)), 10_000);
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    await utimes(path.join(root, orphan.key), old, old);
    const report = await purgeExpiredRows({ db: testDb(), mode: 'production', documents: store });
    expect(report.orphanObjects).to.equal(1);
    const left: string[] = [];
    for await (const object of store.listObjects()) left.push(object.key);
    expect(left).to.deep.equal([young.key]);
    const narrowed = await purgeExpiredRows({
      db: testDb(),
      mode: 'production',
      organizationId: org,
      documents: store,
    });
    expect(narrowed.orphanObjects).to.equal(undefined);
  });
});

describe('what a crash mid-upload leaves in a store’s spool', function () {
  this.timeout(60_000);

  /** A received body's file as a killed process leaves it: written, never renamed or sent, untouched since `at`. */
  async function leftBehind(spool: string, at: Date): Promise<string> {
    await mkdir(spool, { recursive: true });
    const file = path.join(spool, randomUUID());
    await writeFile(file, pdfLike(100));
    await utimes(file, at, at);
    return file;
  }

  for (const [name, open] of [
    ['local filesystem', (root: string) => ({ store: new LocalDocumentStore(root), spool: path.join(root, '.tmp') })],
    [
      'S3 (versitygw)',
      (root: string) => {
        if (!s3) throw new Error('no S3 server');
        const spool = path.join(root, 's3-spool');
        return {
          store: new S3DocumentStore({ ...s3.storeConfig, prefix: 'spool-test/', spoolDirectory: spool }),
          spool,
        };
      },
    ],
  ] as const) {
    it(`is swept with the orphans once past the grace period, on the ${name} store`, async () => {
      const { store, spool } = open(path.join(dir, `spool-${randomUUID()}`));
      const stale = await leftBehind(spool, new Date(Date.now() - 2 * 60 * 60_000));
      const recent = await leftBehind(spool, new Date());
      expect(await sweepOrphanObjects({ db: testDb(), store })).to.equal(1);
      expect(await readdir(spool)).to.deep.equal([path.basename(recent)]);
      expect(path.basename(stale)).not.to.equal(path.basename(recent));
    });
  }
});
