/**
 * The documents routes over HTTP, on both stores: the local filesystem and S3 (a real versitygw process).
 * Upload, list and download byte-for-byte (SHA-256 equal); a wrong type under a PDF name refused with 415; another
 * tenant's debt or document 404; an Idempotency-Key replays the first upload without storing the file again; a
 * malformed key refused before the file is stored; a field after the file that refuses it leaves nothing stored; the
 * 51st document refused; a missing object a clear 404. On both stores: 10 MiB + 1 byte refused with 413 while the
 * API's live memory, measured with 8 MiB of the body read, grows by far less than the body. What a store holds is
 * observed on the store itself (its files and their inodes, its temporary files, its bucket, its spool).
 */
import { expect } from 'chai';
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENTS_PER_DEBT } from '../../core/documents/documents';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { LocalDocumentStore } from '../../core/documents/local-store';
import { S3DocumentStore } from '../../core/documents/s3-store';
import type { DocumentStore } from '../../core/documents/store';
import { newId } from '../../core/platform/ids';
import { startTestServer, type TestServer } from '../support/app';
import { callerFor, expectProblem, raiseDebt, type ApiAnswer, type Caller } from '../support/debt-api';
import { startOwnS3, type OwnS3 } from '../support/own-s3';
import { testDb } from '../support/resources';
import { createTestTenant, mintKey, type TestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';

type Doc = Record<string, unknown> & { id: string; sha256: string; size: number };
type DocPage = { data: Doc[]; nextCursor: string | null };

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function pdfLike(size: number): Buffer {
  const bytes = randomBytes(size);
  bytes.write('%PDF-1.7\n', 0, 'latin1');
  return bytes;
}

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3000)]);

interface UploadOptions {
  fileName?: string;
  fields?: Record<string, string>;
  /** Fields sent after the file part (the recommended order is before it). */
  fieldsAfterFile?: Record<string, string>;
  idempotencyKey?: string;
  tenant: TestTenant;
}

async function upload(
  server: TestServer,
  debtId: string,
  bytes: Buffer,
  options: UploadOptions,
): Promise<ApiAnswer<Doc>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  form.append(
    'file',
    new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }),
    options.fileName ?? 'agreement.pdf',
  );
  for (const [name, value] of Object.entries(options.fieldsAfterFile ?? {})) form.append(name, value);
  const headers: Record<string, string> = { ...options.tenant.headers };
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const res = await fetch(`${server.baseUrl}/v1/debts/${debtId}/documents`, { method: 'POST', headers, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: (text ? JSON.parse(text) : undefined) as Doc };
}

async function download(
  server: TestServer,
  tenant: TestTenant,
  url: string,
): Promise<{ res: Response; bytes: Buffer }> {
  const res = await fetch(`${server.baseUrl}${url}`, { headers: tenant.headers });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** The head of a multipart body's file part. */
function filePartHead(boundary: string): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="agreement.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
}

/** A multipart upload written by hand, for what `fetch` cannot do: pause mid-body, see what the API has read. */
interface RawUpload {
  /** Resolves once the bytes are taken (or the answer has come: an early answer ends the sending). */
  write(bytes: Buffer | string): Promise<void>;
  end(bytes: Buffer | string): void;
  answered: Promise<{ status: number; text: string }>;
  /** What the API has read off this request's connection so far. */
  readByApi(): number;
  close(): void;
}

function openRawUpload(
  server: TestServer,
  tenant: TestTenant,
  debtId: string,
  body: { boundary: string; length: number },
): RawUpload {
  const apiSockets: Socket[] = [];
  const onConnection = (socket: Socket) => apiSockets.push(socket);
  server.httpServer.on('connection', onConnection);
  const req = request(`${server.baseUrl}/v1/debts/${debtId}/documents`, {
    method: 'POST',
    agent: false, // a connection of its own, to find the API's end of it
    headers: {
      ...tenant.headers,
      'content-type': `multipart/form-data; boundary=${body.boundary}`,
      'content-length': String(body.length),
    },
  });
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (part: string) => (text += part));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
  });
  return {
    write: (bytes) =>
      new Promise<void>((resolve) => {
        if (req.write(bytes)) resolve();
        else req.once('drain', resolve);
        void answered.then(
          () => resolve(),
          () => resolve(),
        );
      }),
    end: (bytes) => req.end(bytes),
    answered,
    readByApi: () => apiSockets.find((socket) => socket.remotePort === req.socket?.localPort)?.bytesRead ?? 0,
    close: () => server.httpServer.off('connection', onConnection),
  };
}

async function objectKeys(store: DocumentStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of store.listObjects()) keys.push(object.key);
  return keys;
}

/**
 * What a store holds, to tell whether a request wrote anything: each object by its key and what makes a rewrite of it
 * visible, and any temporary file. Same bytes under one key on the local store are one file, rewritten by each put.
 */
type StoreContents = () => Promise<string[]>;

async function namesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
}

interface StoreUnderTest {
  store: DocumentStore;
  contents: StoreContents;
  /** Whether the store holds a file or object of exactly `size` bytes, temporary or not. */
  holdsBytes: (size: number) => Promise<boolean>;
}

function documentsApiOnStore(name: string, openStore: () => StoreUnderTest): void {
  describe(`Documents API on the ${name} store`, function () {
    this.timeout(60_000);
    let server: TestServer;
    let store: DocumentStore;
    let tenant: TestTenant;
    let api: Caller;
    let contents: StoreContents;
    let holdsBytes: StoreUnderTest['holdsBytes'];

    before(async () => {
      ({ store, contents, holdsBytes } = openStore());
      server = await startTestServer({ deps: { documentStore: store } });
    });
    after(async () => {
      await server.close();
    });
    beforeEach(async () => {
      tenant = await createTestTenant();
      api = callerFor(server.baseUrl, tenant);
    });

    it('uploads, lists, reads and downloads byte-for-byte (SHA-256 equal), as an attachment never sniffed', async () => {
      const debt = await raiseDebt(api);
      const pdf = pdfLike(3 * 1024 * 1024 + 17);
      const created = await upload(server, debt.id, pdf, {
        tenant,
        fileName: 'Agreement ü;1.pdf',
        fields: { kind: 'Agreement', description: 'Signed agreement' },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({
        debtId: debt.id,
        kind: 'Agreement',
        description: 'Signed agreement',
        fileName: 'Agreement ü;1.pdf',
        contentType: 'application/pdf',
        size: pdf.length,
        sha256: sha256(pdf),
      });
      expect(created.headers.get('location')).to.equal(`/v1/debts/${debt.id}/documents/${created.body.id}`);
      const png = await upload(server, debt.id, PNG, { tenant, fileName: 'statement.png' });
      expect(png.status, png.text).to.equal(201);
      expect(png.body).to.include({ kind: 'Other', description: null, contentType: 'image/png' });

      const list = await api<DocPage>('GET', `/v1/debts/${debt.id}/documents`);
      expect(list.status).to.equal(200);
      expect(list.body.data.map((d) => d.id)).to.deep.equal([png.body.id, created.body.id]);
      const paged = await api<DocPage>('GET', `/v1/debts/${debt.id}/documents?limit=1`);
      expect(paged.body.data.map((d) => d.id)).to.deep.equal([png.body.id]);
      expect(paged.body.nextCursor).to.be.a('string');

      const meta = await api<Doc>('GET', `/v1/debts/${debt.id}/documents/${created.body.id}`);
      expect(meta.body).to.deep.equal(created.body);

      const { res, bytes } = await download(
        server,
        tenant,
        `/v1/debts/${debt.id}/documents/${created.body.id}/content`,
      );
      expect(res.status).to.equal(200);
      expect(sha256(bytes)).to.equal(sha256(pdf));
      expect(res.headers.get('content-type')).to.equal('application/pdf');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-length')).to.equal(String(pdf.length));
      expect(res.headers.get('content-disposition')).to.equal(
        `attachment; filename="Agreement __1.pdf"; filename*=UTF-8''Agreement%20%C3%BC%3B1.pdf`,
      );
    });

    it('refuses bytes that are not a PDF, PNG or JPEG under a .pdf name with 415, storing nothing', async () => {
      const debt = await raiseDebt(api);
      const before = (await objectKeys(store)).length;
      const html = Buffer.from('<html><script>alert(1)</script></html>'.repeat(2000));
      const refused = await upload(server, debt.id, html, { tenant, fileName: 'agreement.pdf' });
      expectProblem(refused, 415, 'unsupported_media_type');
      expect((await api<DocPage>('GET', `/v1/debts/${debt.id}/documents`)).body.data).to.deep.equal([]);
      expect((await objectKeys(store)).length).to.equal(before);
    });

    it('refuses a body that is not multipart, a form without its file, an unknown kind and a NUL in a field', async () => {
      const debt = await raiseDebt(api);
      const json = await api('POST', `/v1/debts/${debt.id}/documents`, { file: 'x' });
      expectProblem(json, 415, 'unsupported_media_type');
      const form = new FormData();
      form.append('kind', 'Agreement');
      const res = await fetch(`${server.baseUrl}/v1/debts/${debt.id}/documents`, {
        method: 'POST',
        headers: tenant.headers,
        body: form,
      });
      expect(res.status).to.equal(400);
      expect(((await res.json()) as { title: string }).title).to.equal('invalid_request');
      const badKind = await upload(server, debt.id, PNG, { tenant, fields: { kind: 'Selfie' } });
      expectProblem(badKind, 400, 'invalid_request');
      // PostgreSQL text cannot hold NUL: refused by name, as in a JSON body (found by the fuzzer as a 500).
      const nul = await upload(server, debt.id, PNG, { tenant, fields: { description: 'signed\u0000copy' } });
      expectProblem(nul, 400, 'invalid_request');
      expect(JSON.stringify(nul.body)).to.contain('body.description');
      expect((await api<DocPage>('GET', `/v1/debts/${debt.id}/documents`)).body.data).to.deep.equal([]);
    });

    it('needs debts:documents:write to upload and debts:read to list', async () => {
      const debt = await raiseDebt(api);
      const reader = {
        ...tenant,
        ...(await mintKey(tenant.organization.id, { scopes: ['debts:read', 'debts:write'] })),
      };
      expectProblem(await upload(server, debt.id, PNG, { tenant: reader }), 403, 'forbidden');
      const writer = { ...tenant, ...(await mintKey(tenant.organization.id, { scopes: ['debts:documents:write'] })) };
      expect((await upload(server, debt.id, PNG, { tenant: writer })).status).to.equal(201);
      const list = await callerFor(server.baseUrl, writer)('GET', `/v1/debts/${debt.id}/documents`);
      expectProblem(list, 403, 'forbidden');
      const listed = await callerFor(server.baseUrl, reader)<DocPage>('GET', `/v1/debts/${debt.id}/documents`);
      expect(listed.body.data).to.have.length(1);
    });

    it('answers 405 to another method on the upload path, even with a multipart body', async () => {
      const debt = await raiseDebt(api);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(PNG)]), 'a.png');
      const res = await fetch(`${server.baseUrl}/v1/debts/${debt.id}/documents`, {
        method: 'PUT',
        headers: tenant.headers,
        body: form,
      });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.contain('POST');
      await res.arrayBuffer();
    });

    it('answers 404 for another organisation’s debt or document, and for their document under my debt', async () => {
      const theirs = await createTestTenant();
      const them = callerFor(server.baseUrl, theirs);
      const theirDebt = await raiseDebt(them);
      const theirDoc = await upload(server, theirDebt.id, PNG, { tenant: theirs });
      expect(theirDoc.status).to.equal(201);
      const myDebt = await raiseDebt(api);
      expectProblem(await upload(server, theirDebt.id, PNG, { tenant }), 404, 'not_found');
      expectProblem(await api('GET', `/v1/debts/${theirDebt.id}/documents`), 404, 'not_found');
      for (const debtId of [theirDebt.id, myDebt.id]) {
        for (const suffix of ['', '/content']) {
          const url = `/v1/debts/${debtId}/documents/${theirDoc.body.id}${suffix}`;
          expectProblem(await api('GET', url), 404, 'not_found');
        }
      }
      const theirList = await them<DocPage>('GET', `/v1/debts/${theirDebt.id}/documents`);
      expect(theirList.body.data.map((d) => d.id)).to.deep.equal([theirDoc.body.id]);
    });

    it('replays an upload sent again with its Idempotency-Key, storing nothing again; another file is a conflict', async () => {
      const debt = await raiseDebt(api);
      const key = randomUUID();
      const pdf = pdfLike(200_000);
      const first = await upload(server, debt.id, pdf, { tenant, idempotencyKey: key, fields: { kind: 'Notice' } });
      expect(first.status, first.text).to.equal(201);
      const stored = await contents();
      const again = await upload(server, debt.id, pdf, { tenant, idempotencyKey: key, fields: { kind: 'Notice' } });
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect(await contents(), 'the replay wrote to the store').to.deep.equal(stored);
      const other = await upload(server, debt.id, pdfLike(200_000), { tenant, idempotencyKey: key });
      expectProblem(other, 409, 'idempotency_conflict');
      expect(await contents(), 'the conflict wrote to the store').to.deep.equal(stored);
      const list = await api<DocPage>('GET', `/v1/debts/${debt.id}/documents`);
      expect(list.body.data.map((d) => d.id)).to.deep.equal([first.body.id]);
    });

    it('refuses a malformed Idempotency-Key with 400 before storing the file', async () => {
      const debt = await raiseDebt(api);
      const before = await contents();
      const refused = await upload(server, debt.id, pdfLike(300_000), { tenant, idempotencyKey: 'k'.repeat(201) });
      const problem = expectProblem(refused, 400, 'invalid_request');
      expect(JSON.stringify(problem)).to.contain('header.Idempotency-Key');
      expect(await contents()).to.deep.equal(before);
      expect((await api<DocPage>('GET', `/v1/debts/${debt.id}/documents`)).body.data).to.deep.equal([]);
    });

    it('takes kind and description sent after the file, and keeps no object when one of them is refused', async () => {
      const debt = await raiseDebt(api);
      const late = await upload(server, debt.id, PNG, { tenant, fieldsAfterFile: { kind: 'Statement' } });
      expect(late.status, late.text).to.equal(201);
      expect(late.body.kind).to.equal('Statement');
      const before = await contents();
      const badKind = await upload(server, debt.id, pdfLike(300_000), { tenant, fieldsAfterFile: { kind: 'Selfie' } });
      expect(JSON.stringify(expectProblem(badKind, 400, 'invalid_request'))).to.contain('body.kind');
      const long = await upload(server, debt.id, pdfLike(300_000), {
        tenant,
        fields: { kind: 'Notice' },
        fieldsAfterFile: { description: 'x'.repeat(1001) },
      });
      expect(JSON.stringify(expectProblem(long, 400, 'invalid_request'))).to.contain('body.description');
      expect(await contents(), 'a refused upload left something in the store').to.deep.equal(before);
      const list = await api<DocPage>('GET', `/v1/debts/${debt.id}/documents`);
      expect(list.body.data.map((d) => d.id)).to.deep.equal([late.body.id]);
    });

    it('keeps no object when a field sent after the whole file refuses it', async () => {
      const debt = await raiseDebt(api);
      const before = await contents();
      const file = pdfLike(300_000 + randomInt(10_000));
      const boundary = `b${randomBytes(16).toString('hex')}`;
      const head = filePartHead(boundary);
      const next = `\r\n--${boundary}\r\n`; // ends the file part
      const rest = `Content-Disposition: form-data; name="kind"\r\n\r\nSelfie\r\n--${boundary}--\r\n`;
      const length = head.length + file.length + next.length + rest.length;
      const raw = openRawUpload(server, tenant, debt.id, { boundary, length });
      try {
        await raw.write(head);
        await raw.write(file);
        await raw.write(next);
        // The store has all of the file before the refused field is even sent.
        await waitFor(() => holdsBytes(file.length), { what: 'the store to receive the whole file' });
        raw.end(rest);
        const answer = await raw.answered;
        expect(answer.status, answer.text).to.equal(400);
        expect(answer.text).to.contain('body.kind');
      } finally {
        raw.close();
      }
      expect(await contents(), 'the refused upload left something in the store').to.deep.equal(before);
      expect((await api<DocPage>('GET', `/v1/debts/${debt.id}/documents`)).body.data).to.deep.equal([]);
    });

    it(`refuses the ${MAX_DOCUMENTS_PER_DEBT + 1}st document with 409 document_limit_reached, still replays the ${MAX_DOCUMENTS_PER_DEBT}th`, async () => {
      const debt = await raiseDebt(api);
      const stored = await upload(server, debt.id, PNG, { tenant });
      const row = await testDb()('documents').where({ id: stored.body.id }).first();
      const copies = Array.from({ length: MAX_DOCUMENTS_PER_DEBT - 2 }, () => ({ ...row, id: newId() }));
      await testDb()('documents').insert(copies);
      const key = randomUUID();
      const last = await upload(server, debt.id, PNG, { tenant, idempotencyKey: key });
      expect(last.status, last.text).to.equal(201);
      // The debt is full now, but the replay answers what the key saved.
      const again = await upload(server, debt.id, PNG, { tenant, idempotencyKey: key });
      expect(again.status, again.text).to.equal(201);
      expect(again.body).to.deep.equal(last.body);
      expectProblem(await upload(server, debt.id, PNG, { tenant }), 409, 'document_limit_reached');
    });

    it('answers a clear 404, never a 500, when the stored object has gone missing', async () => {
      const debt = await raiseDebt(api);
      const stored = await upload(server, debt.id, pdfLike(1000), { tenant });
      const row = await testDb()<{ id: string; storage_key: string }>('documents')
        .where({ id: stored.body.id })
        .first('storage_key');
      if (!row) throw new Error('the uploaded document has no row');
      await store.delete(row.storage_key);
      const missing = await api('GET', `/v1/debts/${debt.id}/documents/${stored.body.id}/content`);
      const problem = expectProblem(missing, 404, 'not_found');
      expect(problem.detail).to.match(/missing from storage/);
    });
  });
}

let dir: string;
let s3: OwnS3 | undefined;

before(async function () {
  this.timeout(30_000);
  dir = await mkdtemp(path.join(tmpdir(), 'documents-api-'));
  s3 = await startOwnS3();
});
after(async () => {
  await s3?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** The sizes of the files in `dir` (a file gone meanwhile is left out). */
async function fileSizes(dir: string): Promise<number[]> {
  const infos = await Promise.all((await namesIn(dir)).map((name) => stat(path.join(dir, name)).catch(() => null)));
  return infos.flatMap((info) => (info?.isFile() ? [info.size] : []));
}

documentsApiOnStore('local filesystem', () => {
  const root = path.join(dir, 'local');
  return {
    store: new LocalDocumentStore(root),
    // Each file with its inode: a put of the same bytes renames a new file over the old one.
    contents: async () => {
      const files: string[] = [];
      for (const namespace of await namesIn(root)) {
        for (const name of await namesIn(path.join(root, namespace))) {
          const file = path.join(root, namespace, name);
          files.push(namespace === '.tmp' ? file : `${namespace}/${name}#${(await stat(file)).ino}`);
        }
      }
      return files.sort();
    },
    // Objects under their namespaces, bodies being received under .tmp.
    holdsBytes: async (size) => {
      const sizes = await Promise.all((await namesIn(root)).map((sub) => fileSizes(path.join(root, sub))));
      return sizes.flat().includes(size);
    },
  };
});
documentsApiOnStore('S3 (versitygw)', () => {
  if (!s3) throw new Error('no S3 server');
  const { client, storeConfig } = s3;
  const spoolDirectory = path.join(dir, 's3-spool');
  const store = new S3DocumentStore({ ...storeConfig, spoolDirectory });
  return {
    store,
    // Keys are new for each put; the spool holds a body being received.
    contents: async () => [...(await objectKeys(store)), ...(await namesIn(spoolDirectory))].sort(),
    holdsBytes: async (size) => {
      const spooled = await fileSizes(spoolDirectory);
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: storeConfig.bucket, Prefix: storeConfig.prefix }),
      );
      return spooled.includes(size) || (listed.Contents ?? []).some((object) => object.Size === size);
    },
  };
});

/** V8's collector, to measure live memory rather than garbage not yet collected. */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

function liveBytes(gc: () => void): number {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/**
 * Sends a file of 10 MiB + 1 byte, one 64 KiB chunk again and again (the client holds no copy of the body), and
 * measures the API's live memory once the API has read 8 MiB of it off the connection: whatever store it goes to,
 * those bytes are either passed on or held. Answers the API's answer and that growth.
 */
async function sendOversizeUpload(
  server: TestServer,
  tenant: TestTenant,
  debtId: string,
): Promise<{ answer: { status: number; text: string }; growth: number; fileSize: number }> {
  const gc = collector();
  const fileSize = MAX_DOCUMENT_BYTES + 1;
  const boundary = `b${randomBytes(16).toString('hex')}`;
  const head = filePartHead(boundary);
  const tail = `\r\n--${boundary}--\r\n`;
  const chunk = pdfLike(64 * 1024);
  const baseline = liveBytes(gc);
  const upload = openRawUpload(server, tenant, debtId, { boundary, length: head.length + fileSize + tail.length });
  try {
    await upload.write(head);
    let sent = 0;
    const firstPart = 8 * 1024 * 1024;
    for (; sent < firstPart; sent += chunk.length) await upload.write(chunk);
    await waitFor(() => upload.readByApi() >= firstPart, { what: 'the API to read the first 8 MiB' });
    const growth = liveBytes(gc) - baseline;
    for (; sent + chunk.length <= fileSize; sent += chunk.length) await upload.write(chunk);
    await upload.write(chunk.subarray(0, fileSize - sent));
    upload.end(tail);
    return { answer: await upload.answered, growth, fileSize };
  } finally {
    upload.close();
  }
}

/** 10 MiB + 1 byte refused with 413, the API's live memory growing by far less than the body meanwhile. */
async function expectOversizeRefused(server: TestServer): Promise<void> {
  const tenant = await createTestTenant();
  const debt = await raiseDebt(callerFor(server.baseUrl, tenant));
  const { answer, growth, fileSize } = await sendOversizeUpload(server, tenant, debt.id);
  expect(answer.status, answer.text).to.equal(413);
  expect((JSON.parse(answer.text) as { title: string }).title).to.equal('payload_too_large');
  console.log(`      live memory growth with 8 MiB read: ${(growth / 1024 / 1024).toFixed(2)} MiB`);
  expect(growth).to.be.below(fileSize / 2);
  const list = await callerFor(server.baseUrl, tenant)<DocPage>('GET', `/v1/debts/${debt.id}/documents`);
  expect(list.body.data).to.deep.equal([]);
}

describe('Documents API: a file past 10 MiB', function () {
  this.timeout(60_000);
  let server: TestServer;
  let root: string;

  before(async () => {
    root = path.join(dir, 'oversize');
    server = await startTestServer({ deps: { documentStore: new LocalDocumentStore(root) } });
  });
  after(async () => {
    await server.close();
  });

  it('is refused with 413 payload_too_large, the API holding far less than the body in memory meanwhile', async () => {
    await expectOversizeRefused(server);
    expect(await readdir(path.join(root, '.tmp'))).to.deep.equal([]);
  });

  it('leaves no temporary file when the client goes away in the middle of the file', async () => {
    const tenant = await createTestTenant();
    const debt = await raiseDebt(callerFor(server.baseUrl, tenant));
    const boundary = `b${randomBytes(16).toString('hex')}`;
    const req = request(`${server.baseUrl}/v1/debts/${debt.id}/documents`, {
      method: 'POST',
      headers: {
        ...tenant.headers,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(5 * 1024 * 1024),
      },
    });
    req.on('error', () => undefined); // the abort below
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="gone.pdf"\r\n\r\n`);
    req.write(pdfLike(1024 * 1024));
    const tmp = path.join(root, '.tmp');
    await waitFor(async () => (await readdir(tmp).catch(() => [])).length > 0, { what: 'the upload to begin' });
    req.destroy();
    await waitFor(async () => (await readdir(tmp)).length === 0, {
      what: 'the abandoned upload’s temporary file to be removed',
    });
    const list = await callerFor(server.baseUrl, tenant)<DocPage>('GET', `/v1/debts/${debt.id}/documents`);
    expect(list.body.data).to.deep.equal([]);
  });

  it('is refused at once when the declared length is already too large, before the body is read', async () => {
    const tenant = await createTestTenant();
    const debt = await raiseDebt(callerFor(server.baseUrl, tenant));
    const answer = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = request(`${server.baseUrl}/v1/debts/${debt.id}/documents`, {
        method: 'POST',
        headers: {
          ...tenant.headers,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(100 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
      });
      req.on('error', reject);
      req.write('--x\r\n'); // the rest is never sent: the answer cannot wait for it
    });
    expect(answer).to.deep.equal({ status: 413, connection: 'close' });
  });
});

describe('Documents API on the S3 store: a file past 10 MiB', function () {
  this.timeout(60_000);
  let server: TestServer;
  let bucket: S3DocumentStore;

  before(async () => {
    if (!s3) throw new Error('no S3 server');
    const { endpoint = '', bucket: name, credentials } = s3.storeConfig;
    // The API configured as an operator would: DOCUMENT_STORE=s3 against the real S3-compatible server.
    server = await startTestServer({
      env: {
        DOCUMENT_STORE: 's3',
        S3_BUCKET: name,
        S3_PREFIX: 'oversize/',
        S3_ENDPOINT: endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: credentials?.accessKeyId ?? '',
        S3_SECRET_ACCESS_KEY: credentials?.secretAccessKey ?? '',
      },
    });
    bucket = new S3DocumentStore({ ...s3.storeConfig, prefix: 'oversize/' });
  });
  after(async () => {
    bucket.destroy();
    await server.close();
  });

  it('is refused with 413 payload_too_large, the API holding far less than the body in memory meanwhile', async () => {
    await expectOversizeRefused(server);
    expect(await objectKeys(bucket)).to.deep.equal([]);
  });
});
