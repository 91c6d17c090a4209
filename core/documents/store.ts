/**
 * Where a debt's documents keep their bytes. Two implementations: the local filesystem (`local-store.ts`, the embedded
 * default for `npm start` and the tests) and S3 (`s3-store.ts`). The database row is written only after `put` has
 * stored the object, so a crash in between leaves an object with no row: `listObjects` lets the retention schedule
 * find and delete such orphans.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';

/** What `put` stored: the key to read it back by, its SHA-256 (hex) and its size in bytes. */
export interface StoredObject {
  key: string;
  sha256: string;
  size: number;
}

export interface ListedObject {
  key: string;
  lastModified: Date;
}

export interface PutOptions {
  /**
   * Whether the object is still wanted once its bytes are all in: the store receives the whole body first (in a
   * temporary file), then waits for this before the object appears under its key. Rejected, nothing is kept and
   * `put` rejects with its error. An upload's form may refuse the file after its last byte (a field sent after it).
   */
  ready?: Promise<void>;
  /** Sees the body as it arrives, before its bytes are counted and written; throwing refuses it (nothing kept). */
  check?: BodyCheck;
}

/**
 * A look at a body on its way into the store (a document's type recognised by its first bytes): `chunk` for each
 * piece in order, `end` once all are in. Either may throw to refuse the body.
 */
export interface BodyCheck {
  chunk(bytes: Buffer): void;
  end(): void;
}

export interface DocumentStore {
  /**
   * Streams `body` into the store under `namespace` (an organisation id), hashing and counting as it goes; never
   * holds the body in memory. Past `maxBytes` it stops reading and rejects with `ObjectTooLargeError`, leaving nothing
   * under a real name.
   */
  put(namespace: string, body: Readable, maxBytes: number, options?: PutOptions): Promise<StoredObject>;
  /**
   * The bytes of a stored object, streamed, from byte `start` on (a placement's import resumes mid-file); rejects
   * with `ObjectMissingError` when there is no such object.
   */
  get(key: string, options?: { start?: number }): Promise<Readable>;
  /** Deletes one object; an absent key is no error. */
  delete(key: string): Promise<void>;
  /** Deletes every object of a namespace (the sandbox reset). */
  deleteNamespace(namespace: string): Promise<void>;
  /** Every stored object, for the orphan sweep. */
  listObjects(): AsyncIterable<ListedObject>;
  /** Removes received-but-unstored bodies (a crash mid-upload) last written before `cutoff`; returns how many. */
  sweepSpool(cutoff: Date): Promise<number>;
}

export class ObjectTooLargeError extends Error {
  constructor(public readonly maxBytes: number) {
    super(`the object is larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

/** `get` of a key the store does not hold (a file removed by hand, an S3 `NoSuchKey`). */
export class ObjectMissingError extends Error {
  constructor(public readonly key: string) {
    super(`no stored object ${key}`);
    this.name = 'ObjectMissingError';
  }
}

/** Namespaces become path segments and key prefixes: only ids, never anything a client chose. */
export function checkNamespace(namespace: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(namespace)) throw new Error(`invalid document namespace: ${namespace}`);
  return namespace;
}

/**
 * A pass-through that hashes and counts the bytes and fails the pipeline with `ObjectTooLargeError` as soon as more
 * than `maxBytes` went through. `result()` is valid once the stream has ended.
 */
export class HashingLimit extends Transform {
  private readonly hash = createHash('sha256');
  private bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new ObjectTooLargeError(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  result(): { sha256: string; size: number } {
    return { sha256: this.hash.digest('hex'), size: this.bytes };
  }
}
