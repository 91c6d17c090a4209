/**
 * A body written to a temporary file while it is hashed and counted: how both stores receive an upload before its
 * object appears (the local store renames the file into place, the S3 store sends it with its length known). The
 * body is never held in memory (at most `WRITE_BATCH` bytes and what the stream buffers), and a refused or broken
 * body leaves no file.
 *
 * One writable stream does the counting, the hashing, the caller's check and the file writes: each stream stage
 * between the body and the file cost the API a few µs per chunk, and a socket hands over a 1 MiB upload in ~35
 * chunks. The writes are batched (one `writev` per `WRITE_BATCH`): each write is a round trip through libuv's
 * thread pool (a futex wake, a thread switch, a completion), and that, not the copy, was the cost of ~32 KiB writes.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { close, open, writev } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ObjectTooLargeError, type BodyCheck } from './store';

/** Bytes gathered before they are written: 4 writes for a 1 MiB body. */
export const WRITE_BATCH = 256 * 1024;
/** Chunks gathered into one buffer before a write rather than passed as that many iovecs. */
const MAX_IOVECS = 64;

/**
 * Writes `body` to `path` (created, never overwritten; its directory made when missing), refusing it past `maxBytes`
 * (`ObjectTooLargeError`) or when `check` throws, then waits for `ready`. On any failure the file is removed before
 * the error is thrown; on success the caller owns it.
 */
export async function spoolToFile(
  body: Readable,
  path: string,
  maxBytes: number,
  options: { ready?: Promise<void>; check?: BodyCheck } = {},
): Promise<{ sha256: string; size: number }> {
  const { ready, check } = options;
  // Awaited only once the body is in: marked handled now, so an early refusal is no unhandled rejection (which
  // would end the process).
  ready?.catch(() => undefined);
  const out = new SpoolFile(path, maxBytes, check);
  try {
    await pipeline(body, out);
    await ready;
    return out.result();
  } catch (err) {
    // A body that fails at once rejects the pipeline before the file's open has completed: that open would create
    // the file after the removal below. Wait for the stream to close (its open done, its descriptor closed).
    if (!out.closed) await once(out, 'close').catch(() => undefined);
    await rm(path, { force: true });
    throw err;
  }
}

/** The file end of `spoolToFile`: counts, checks, hashes and writes in batches. */
class SpoolFile extends Writable {
  private fd: number | undefined;
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** A write in flight: the descriptor is closed only after it (a closed number may be reused meanwhile). */
  private writing: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    private readonly check: BodyCheck | undefined,
  ) {
    // Chunks queue in the stream while a batch is being written, up to one more batch.
    super({ highWaterMark: WRITE_BATCH });
  }

  override _construct(callback: (error?: Error | null) => void): void {
    openNew(this.path, (err, fd) => {
      this.fd = fd;
      callback(err);
    });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const refused = this.take(chunk);
    if (refused) callback(refused);
    else if (this.pendingBytes >= WRITE_BATCH) this.flush(callback);
    else callback();
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    for (const { chunk } of chunks) {
      const refused = this.take(chunk);
      if (refused) {
        callback(refused);
        return;
      }
    }
    if (this.pendingBytes >= WRITE_BATCH) this.flush(callback);
    else callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    try {
      this.check?.end();
    } catch (err) {
      callback(err as Error);
      return;
    }
    if (this.pendingBytes > 0) this.flush(callback);
    else callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.pending = [];
    const fd = this.fd;
    this.fd = undefined;
    if (fd === undefined) {
      callback(error);
      return;
    }
    const closeFile = () => close(fd, (closeError) => callback(error ?? closeError));
    if (this.writing) void this.writing.then(closeFile);
    else closeFile();
  }

  /** The body's SHA-256 (hex) and size; valid once the stream has finished. */
  result(): { sha256: string; size: number } {
    return { sha256: this.hash.digest('hex'), size: this.bytes };
  }

  private take(chunk: Buffer): Error | undefined {
    try {
      this.check?.chunk(chunk);
    } catch (err) {
      return err as Error;
    }
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return new ObjectTooLargeError(this.maxBytes);
    this.hash.update(chunk);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    return undefined;
  }

  private flush(callback: (error?: Error | null) => void): void {
    const buffers = this.pending.length > MAX_IOVECS ? [Buffer.concat(this.pending)] : this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.writing = new Promise((done) =>
      writeAll(this.fd!, buffers, (err) => {
        this.writing = undefined;
        done();
        callback(err);
      }),
    );
  }
}

/** Opens `path` for writing, created (never an existing file), its directory made when missing. */
function openNew(path: string, callback: (err: Error | null, fd?: number) => void): void {
  open(path, 'wx', 0o600, (err, fd) => {
    if (err?.code !== 'ENOENT') {
      callback(err, fd);
      return;
    }
    mkdir(dirname(path), { recursive: true }).then(
      () => open(path, 'wx', 0o600, callback),
      (mkdirError: Error) => callback(mkdirError),
    );
  });
}

/** `writev` until every byte is written (a regular file may take fewer bytes than asked). */
function writeAll(fd: number, buffers: Buffer[], callback: (error?: Error | null) => void): void {
  writev(fd, buffers, (err, written) => {
    if (err || written === 0) {
      callback(err ?? new Error('writev wrote nothing'));
      return;
    }
    let left = written;
    let i = 0;
    while (i < buffers.length && left >= buffers[i]!.length) left -= buffers[i++]!.length;
    if (i === buffers.length) {
      callback();
      return;
    }
    const rest = buffers.slice(i);
    rest[0] = rest[0]!.subarray(left);
    writeAll(fd, rest, callback);
  });
}

/**
 * Removes the files of a spool directory last written before `cutoff`: what a process killed mid-upload leaves (a
 * live upload writes its file all the while, so one untouched for the orphan grace period is no upload any more).
 * Returns how many it removed; a missing directory has none.
 */
export async function sweepSpool(directory: string, cutoff: Date): Promise<number> {
  const names = await readdir(directory).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  let removed = 0;
  for (const name of names) {
    const path = join(directory, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile() || info.mtime >= cutoff) continue;
    await rm(path, { force: true });
    removed += 1;
  }
  return removed;
}
