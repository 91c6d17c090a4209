/**
 * A body written to a temporary file while it is hashed and counted: how both stores receive an upload before its
 * object appears (the local store renames the file into place, the S3 store sends it with its length known). The
 * body is never held in memory, and a refused or broken body leaves no file.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HashingLimit } from './store';

/**
 * Writes `body` to `path` (created, never overwritten), refusing it past `maxBytes` (`ObjectTooLargeError`), then
 * waits for `ready`. On any failure the file is removed before the error is thrown; on success the caller owns it.
 */
export async function spoolToFile(
  body: Readable,
  path: string,
  maxBytes: number,
  ready?: Promise<void>,
): Promise<{ sha256: string; size: number }> {
  // Awaited only once the body is in: marked handled now, so an early refusal is no unhandled rejection (which
  // would end the process).
  ready?.catch(() => undefined);
  await mkdir(dirname(path), { recursive: true });
  const counter = new HashingLimit(maxBytes);
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  try {
    await pipeline(body, counter, out);
    await ready;
    return counter.result();
  } catch (err) {
    // A body that fails at once rejects the pipeline before the file's open has completed: that open would create
    // the file after the removal below. Wait for the stream to close (its open done) before removing.
    if (!out.closed) await once(out, 'close').catch(() => undefined);
    await rm(path, { force: true });
    throw err;
  }
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
