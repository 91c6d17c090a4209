/**
 * Both `DocumentStore`s, through the one interface: the local filesystem over a temporary directory and S3 against a
 * real versitygw process (test/support/own-s3.ts). Bytes come back byte-for-byte (SHA-256 equal) whatever pieces they
 * come in, a body past the limit or refused by its check leaves no object and no temporary file, an object appears
 * only once its `ready` is fulfilled, a namespace is deleted whole, and the sweep's listing sees objects.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { S3DocumentStore } from '../../core/documents/s3-store';
import { ObjectTooLargeError, type DocumentStore } from '../../core/documents/store';
import { startOwnS3, type OwnS3 } from '../support/own-s3';
import { waitFor } from '../support/wait';

const ORG = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const OTHER = '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';

/** A body delivered in 64 KiB chunks, as a request stream would be. */
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

async function keys(store: DocumentStore): Promise<string[]> {
  const found: string[] = [];
  for await (const object of store.listObjects()) found.push(object.key);
  return found.sort();
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A store under test, and the temporary files it holds while receiving a body (none once `put` has settled). */
interface StoreUnderTest {
  store: DocumentStore;
  temporaryFiles: () => Promise<string[]>;
}

async function filesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
}

function behavesAsADocumentStore(openUnderTest: () => StoreUnderTest): void {
  const open = () => openUnderTest().store;

  it('stores a streamed body and gives back the same bytes, with their SHA-256 and size', async () => {
    const store = open();
    const bytes = randomBytes(6 * 1024 * 1024 + 123); // more than one 5 MiB multipart part
    const stored = await store.put(ORG, chunked(bytes), 10 * 1024 * 1024);
    expect(stored.sha256).to.equal(sha256(bytes));
    expect(stored.size).to.equal(bytes.length);
    expect(stored.key.startsWith(`${ORG}/`)).to.equal(true);
    const back = await readAll(await store.get(stored.key));
    expect(sha256(back)).to.equal(sha256(bytes));
    expect(await keys(store)).to.deep.equal([stored.key]);
  });

  it('refuses a body one byte past the limit and leaves no object', async () => {
    const { store, temporaryFiles } = openUnderTest();
    const limit = 1024 * 1024;
    const error = await store.put(ORG, chunked(randomBytes(limit + 1)), limit).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).to.be.instanceOf(ObjectTooLargeError);
    expect(await keys(store)).to.deep.equal([]);
    expect(await temporaryFiles()).to.deep.equal([]);
    const exact = await store.put(ORG, chunked(randomBytes(limit)), limit);
    expect(exact.size).to.equal(limit);
  });

  it('gives back the same bytes whatever pieces the body comes in (single bytes, odd sizes, one large piece)', async () => {
    const store = open();
    const bytes = randomBytes(700_000);
    const sizes = [1, 1, 1, 7, 1000, 4093, 65_536, 300_000];
    const pieces: Buffer[] = [];
    for (let at = 0, i = 0; at < bytes.length; i += 1) {
      // A run of small pieces too: more of them than the spool passes to one write.
      const size = at < 200_000 && at > 100_000 ? 500 : sizes[i % sizes.length]!;
      pieces.push(bytes.subarray(at, at + size));
      at += size;
    }
    const stored = await store.put(ORG, Readable.from(pieces), 1_000_000);
    expect(stored.sha256).to.equal(sha256(bytes));
    expect(stored.size).to.equal(bytes.length);
    expect(sha256(await readAll(await store.get(stored.key)))).to.equal(sha256(bytes));
  });

  it('refuses a body its check throws on, and leaves no object', async () => {
    const { store, temporaryFiles } = openUnderTest();
    const refusal = new Error('not a document');
    let seen = 0;
    const check = {
      chunk: (piece: Buffer) => {
        seen += piece.length;
        if (seen > 300_000) throw refusal;
      },
      end: () => undefined,
    };
    const error = await store.put(ORG, chunked(randomBytes(1_000_000)), 2_000_000, { check }).catch((e: unknown) => e);
    expect(error).to.equal(refusal);
    const atEnd = await store
      .put(ORG, chunked(randomBytes(1000)), 2_000_000, {
        check: {
          chunk: () => undefined,
          end: () => {
            throw refusal;
          },
        },
      })
      .catch((e: unknown) => e);
    expect(atEnd).to.equal(refusal);
    expect(await keys(store)).to.deep.equal([]);
    expect(await temporaryFiles()).to.deep.equal([]);
  });

  it('makes the object appear only once `ready` is fulfilled, and keeps nothing when it is rejected', async () => {
    const { store, temporaryFiles } = openUnderTest();
    let allow!: () => void;
    const ready = new Promise<void>((resolve) => (allow = resolve));
    const bytes = randomBytes(100_000);
    const putting = store.put(ORG, chunked(bytes), 1_000_000, { ready });
    // The whole body received (in a temporary file of its full size), still no object.
    await waitFor(async () => (await temporaryFiles()).length === 1, { what: 'the body to be received' });
    expect(await keys(store)).to.deep.equal([]);
    allow();
    const stored = await putting;
    expect(await keys(store)).to.deep.equal([stored.key]);
    expect(await temporaryFiles()).to.deep.equal([]);

    const refusal = new Error('a field after the file was refused');
    const refused = store.put(ORG, chunked(randomBytes(100_000)), 1_000_000, { ready: Promise.reject(refusal) });
    expect(await refused.catch((err: unknown) => err)).to.equal(refusal);
    expect(await keys(store)).to.deep.equal([stored.key]);
    expect(await temporaryFiles()).to.deep.equal([]);
  });

  it('deletes one object, and a whole namespace without touching another', async () => {
    const store = open();
    const a = await store.put(ORG, chunked(randomBytes(1000)), 10_000);
    const b = await store.put(ORG, chunked(randomBytes(1000)), 10_000);
    const c = await store.put(OTHER, chunked(randomBytes(1000)), 10_000);
    await store.delete(a.key);
    await store.delete(a.key); // absent: no error
    expect(await keys(store)).to.deep.equal([b.key, c.key].sort());
    await store.deleteNamespace(ORG);
    expect(await keys(store)).to.deep.equal([c.key]);
  });

  it('never takes a key or namespace that could escape its place', async () => {
    const store = open();
    for (const bad of ['../x', 'a/../../b', '']) {
      const error = await store.put(bad, chunked(Buffer.from('x')), 10).catch((err: unknown) => err);
      expect(error).to.be.instanceOf(Error);
    }
    const error = await store.get(`${ORG}/../../etc/passwd`).catch((err: unknown) => err);
    expect(error).to.be.instanceOf(Error);
  });
}

describe('document stores', function () {
  this.timeout(60_000);

  describe('local filesystem', () => {
    let dir = '';
    beforeEach(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'documents-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    behavesAsADocumentStore(() => ({
      store: new LocalDocumentStore(dir),
      temporaryFiles: () => filesIn(path.join(dir, '.tmp')),
    }));

    it('is content-addressed and leaves no temporary file behind', async () => {
      const store = new LocalDocumentStore(dir);
      const bytes = randomBytes(5000);
      const first = await store.put(ORG, chunked(bytes), 10_000);
      const second = await store.put(ORG, chunked(bytes), 10_000);
      expect(first.key).to.equal(`${ORG}/${sha256(bytes)}`);
      expect(second.key).to.equal(first.key);
      await store.put(ORG, chunked(randomBytes(20_000)), 10_000).catch(() => undefined);
      expect(await readdir(path.join(dir, '.tmp'))).to.deep.equal([]);
    });
  });

  describe('S3 (a real versitygw process)', () => {
    let s3: OwnS3 | undefined;
    let n = 0;
    let spool = '';
    before(async () => {
      s3 = await startOwnS3();
      spool = await mkdtemp(path.join(tmpdir(), 'documents-spool-'));
    });
    after(async () => {
      await s3?.destroy();
      await rm(spool, { recursive: true, force: true });
    });

    // A fresh prefix and spool directory per test, so each starts from an empty listing.
    behavesAsADocumentStore(() => {
      if (!s3) throw new Error('no S3 server');
      n += 1;
      const spoolDirectory = path.join(spool, `run${n}`);
      return {
        store: new S3DocumentStore({ ...s3.storeConfig, prefix: `run${n}/`, spoolDirectory }),
        temporaryFiles: () => filesIn(spoolDirectory),
      };
    });
  });
});
