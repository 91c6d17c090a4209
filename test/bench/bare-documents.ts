/**
 * The document uploads' anchor (mounted by bare-server.ts, its own process), from Node's own modules alone:
 * POST /documents?org=<id> streams the request's body, raw, into the same store ours writes to — no key, no multipart
 * parsing, no type check, no database. What HTTP's own transfer and the store leave any API on this machine.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type Koa from 'koa';

/** A copy of core/documents/documents.ts's MAX_DOCUMENT_BYTES (harness.test.ts asserts the same). */
export const BARE_MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/**
 * The body, as it arrives, into `<root>/<org>/<sha256>` as ours' local store lays it out, line by line: a temporary
 * file under `<root>/.tmp` (`fs.createWriteStream`, Node's defaults: its `writev` batches what piles up while a write is
 * in flight), each chunk counted (refused past the limit) and hashed on its way (SHA-256), the file renamed to its
 * digest once complete (the namespace's directory made when missing). Ours does the same for the file's part of the
 * body, plus the multipart parsing, the type check and the row.
 */
export async function storeRaw(root: string, org: string, body: IncomingMessage, maxBytes: number) {
  const temp = join(root, '.tmp', randomUUID());
  const sha256 = createHash('sha256');
  let size = 0;
  const countAndHash = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new Error('too large'));
      sha256.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, countAndHash, createWriteStream(temp));
    const digest = sha256.digest('hex');
    const path = join(root, org, digest);
    await rename(temp, path).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      await mkdir(join(root, org), { recursive: true });
      await rename(temp, path);
    });
    return { size, sha256: digest };
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * POST /documents?org=<id>: the request's body, raw, into the same store ours writes to — no key, no multipart
 * parsing, no type check, no database. The documents bench's anchor: what HTTP's own transfer and the store leave.
 */
export function rawUploadCeiling(root: string): Koa.Middleware {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== '/documents') {
      await next();
      return;
    }
    const stored = await storeRaw(root, String(ctx.query.org), ctx.req, BARE_MAX_DOCUMENT_BYTES + 64 * 1024);
    ctx.status = 201;
    ctx.body = stored;
  };
}
