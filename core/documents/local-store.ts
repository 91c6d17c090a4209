/**
 * The local filesystem store: content-addressed by SHA-256 under `<root>/<namespace>/<sha256>`. Bytes are written to
 * a temporary file under `<root>/.tmp` and renamed into place once complete, so a crash never leaves half a file
 * under a real name; the rename waits for `ready` (store.ts). The same bytes uploaded twice in one namespace share one
 * file.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { spoolToFile, sweepSpool } from './spool';
import {
  checkNamespace,
  ObjectMissingError,
  type DocumentStore,
  type ListedObject,
  type PutOptions,
  type StoredObject,
} from './store';

const TMP = '.tmp';

export class LocalDocumentStore implements DocumentStore {
  constructor(private readonly root: string) {}

  async put(namespace: string, body: Readable, maxBytes: number, options: PutOptions = {}): Promise<StoredObject> {
    checkNamespace(namespace);
    const temp = join(this.root, TMP, randomUUID());
    const { sha256, size } = await spoolToFile(body, temp, maxBytes, options);
    const key = `${namespace}/${sha256}`;
    try {
      // The namespace's directory is made the first time it is missing, not checked on every upload.
      await rename(temp, this.pathOf(key)).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(join(this.root, namespace), { recursive: true });
        await rename(temp, this.pathOf(key));
      });
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return { key, sha256, size };
  }

  async get(key: string, options: { start?: number } = {}): Promise<Readable> {
    const path = this.pathOf(key);
    // ENOENT here, not as a stream error after the answer has started.
    await stat(path).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new ObjectMissingError(key) : err;
    });
    return createReadStream(path, { start: options.start });
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deleteNamespace(namespace: string): Promise<void> {
    await rm(join(this.root, checkNamespace(namespace)), { recursive: true, force: true });
  }

  sweepSpool(cutoff: Date): Promise<number> {
    return sweepSpool(join(this.root, TMP), cutoff);
  }

  async *listObjects(): AsyncIterable<ListedObject> {
    for (const namespace of await entries(this.root)) {
      if (namespace === TMP) continue;
      for (const name of await entries(join(this.root, namespace))) {
        const info = await stat(join(this.root, namespace, name)).catch(() => null);
        if (info?.isFile()) yield { key: `${namespace}/${name}`, lastModified: info.mtime };
      }
    }
  }

  private pathOf(key: string): string {
    const [namespace, name, ...rest] = key.split('/');
    if (rest.length > 0 || !name || !/^[0-9a-f]{64}$/.test(name)) throw new Error(`invalid document key: ${key}`);
    return join(this.root, checkNamespace(namespace ?? ''), name);
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
