/**
 * The S3 store: objects under `<prefix><namespace>/<uuid>` in one bucket, uploaded with a streaming multipart upload
 * (`@aws-sdk/lib-storage`: parts of 5 MiB, never the whole body in memory) and server-side encryption requested. A
 * failed or refused upload is aborted, so no object appears; an object whose row was never written (a crash in
 * between) is found by `listObjects` and swept by the retention schedule.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
  type ServerSideEncryption,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  checkNamespace,
  HashingLimit,
  ObjectMissingError,
  type DocumentStore,
  type ListedObject,
  type StoredObject,
} from './store';

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
}

export class S3DocumentStore implements DocumentStore {
  private readonly client: S3Client;

  constructor(private readonly config: S3StoreConfig) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
    });
  }

  async put(namespace: string, body: Readable, maxBytes: number): Promise<StoredObject> {
    const key = `${checkNamespace(namespace)}/${randomUUID()}`;
    const counter = new HashingLimit(maxBytes);
    const out = new PassThrough();
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.config.bucket,
        Key: this.config.prefix + key,
        Body: out,
        ServerSideEncryption: this.config.serverSideEncryption,
      },
      queueSize: 2,
      leavePartsOnError: false,
    });
    const feeding = pipeline(body, counter, out);
    const uploading = upload.done();
    try {
      await feeding;
    } catch (err) {
      await upload.abort().catch(() => undefined);
      await uploading.catch(() => undefined);
      await this.delete(key).catch(() => undefined); // a single-part upload may have completed already
      throw err;
    }
    await uploading;
    return { key, ...counter.result() };
  }

  async get(key: string): Promise<Readable> {
    const answer = await this.client
      .send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.fullKey(key) }))
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
