/**
 * The S3 store: objects under `<prefix><namespace>/<uuid>` in one bucket, server-side encryption requested. A body is
 * first received into a temporary file on this host (hashed and counted, refused past its limit), then sent in one
 * PUT of known length, streamed from the file. Not a multipart upload from the request: S3 parts are at least 5 MiB
 * and must be buffered to be sent, so a 10 MiB document was held whole in memory (the 413 memory test measured it).
 * A refused body never reaches S3; an object whose row was never written (a crash in between) is found by
 * `listObjects` and swept by the retention schedule.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  type ServerSideEncryption,
} from '@aws-sdk/client-s3';
import { spoolToFile, sweepSpool } from './spool';
import {
  checkNamespace,
  ObjectMissingError,
  type DocumentStore,
  type ListedObject,
  type PutOptions,
  type StoredObject,
} from './store';

/** S3's limit for one PUT; documents are far below it (10 MiB). */
const MAX_SINGLE_PUT_BYTES = 5 * 1024 ** 3;

export interface S3StoreConfig {
  bucket: string;
  /** Prepended to every key, e.g. `documents/`; empty for the bucket's root. */
  prefix: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, versitygw); undefined for AWS itself. */
  endpoint?: string;
  /** Path-style addressing, which S3-compatible servers on a bare host:port need. */
  forcePathStyle: boolean;
  /** `AES256` or `aws:kms`. */
  serverSideEncryption: ServerSideEncryption;
  /** Static credentials; undefined uses the SDK's default chain (environment, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Where a body is received before it is sent; by default `client-api-s3-spool` in the system's temporary directory. */
  spoolDirectory?: string;
}

export class S3DocumentStore implements DocumentStore {
  private readonly client: S3Client;
  private readonly spoolDirectory: string;

  constructor(private readonly config: S3StoreConfig) {
    this.spoolDirectory = config.spoolDirectory ?? join(tmpdir(), 'client-api-s3-spool');
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
    });
  }

  sweepSpool(cutoff: Date): Promise<number> {
    return sweepSpool(this.spoolDirectory, cutoff);
  }

  async put(namespace: string, body: Readable, maxBytes: number, options: PutOptions = {}): Promise<StoredObject> {
    const key = `${checkNamespace(namespace)}/${randomUUID()}`;
    if (maxBytes > MAX_SINGLE_PUT_BYTES) throw new Error(`the S3 store sends at most ${MAX_SINGLE_PUT_BYTES} bytes`);
    const spool = join(this.spoolDirectory, randomUUID());
    const { sha256, size } = await spoolToFile(body, spool, maxBytes, options);
    try {
      // One PUT of a known length: the object appears whole or not at all, and S3 checks the SHA-256 hashed here.
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.config.bucket,
          Key: this.config.prefix + key,
          Body: createReadStream(spool),
          ContentLength: size,
          ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
          ServerSideEncryption: this.config.serverSideEncryption,
        }),
      );
    } finally {
      await rm(spool, { force: true });
    }
    return { key, sha256, size };
  }

  async get(key: string, options: { start?: number } = {}): Promise<Readable> {
    const range = options.start ? { Range: `bytes=${options.start}-` } : {};
    const answer = await this.client
      .send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.fullKey(key), ...range }))
      .catch((err: unknown) => {
        throw err instanceof NoSuchKey ? new ObjectMissingError(key) : err;
      });
    if (!(answer.Body instanceof Readable)) throw new Error(`S3 returned no stream for ${key}`);
    return answer.Body;
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.fullKey(key) }));
  }

  async deleteNamespace(namespace: string): Promise<void> {
    const prefix = `${this.config.prefix}${checkNamespace(namespace)}/`;
    for await (const page of this.pages(prefix)) {
      if (page.length === 0) continue;
      await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.config.bucket,
          Delete: { Objects: page.map((o) => ({ Key: this.config.prefix + o.key })), Quiet: true },
        }),
      );
    }
  }

  async *listObjects(): AsyncIterable<ListedObject> {
    for await (const page of this.pages(this.config.prefix)) yield* page;
  }

  destroy(): void {
    this.client.destroy();
  }

  private async *pages(prefix: string): AsyncIterable<ListedObject[]> {
    let token: string | undefined;
    do {
      const answer = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      yield (answer.Contents ?? []).flatMap((o) =>
        o.Key ? [{ key: o.Key.slice(this.config.prefix.length), lastModified: o.LastModified ?? new Date(0) }] : [],
      );
      token = answer.IsTruncated ? answer.NextContinuationToken : undefined;
    } while (token);
  }

  private fullKey(key: string): string {
    const [namespace, name, ...rest] = key.split('/');
    if (rest.length > 0 || !name || !/^[0-9a-f-]{36}$/.test(name)) throw new Error(`invalid document key: ${key}`);
    return `${this.config.prefix}${checkNamespace(namespace ?? '')}/${name}`;
  }
}
