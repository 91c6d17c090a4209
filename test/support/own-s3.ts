/**
 * A versitygw (S3-compatible server over a directory, built by scripts/lib/s3.sh) of the test's own, on a free
 * loopback port over a fresh temporary directory, with one bucket created. A real server process, not a mock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3StoreConfig } from '../../core/documents/s3-store';
import { freePort } from './ports';
import { waitFor } from './wait';

export interface OwnS3 {
  /** A store configuration for the bucket this server was started with (prefix `documents/`). */
  storeConfig: S3StoreConfig;
  /** A client of the server, for checks the store interface does not offer. */
  client: S3Client;
  destroy(): Promise<void>;
}

export const VERSITYGW_PATH =
  process.env.VERSITYGW_PATH ?? path.join(homedir(), '.cache', 'client-public-api', 'bin', 'versitygw');

export async function startOwnS3(bucket = 'documents'): Promise<OwnS3> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'own-s3-'));
  const credentials = { accessKeyId: 'test-access', secretAccessKey: randomBytes(16).toString('hex') };
  const child: ChildProcess = spawn(VERSITYGW_PATH, ['--port', `127.0.0.1:${port}`, '--quiet', 'posix', dir], {
    stdio: 'ignore',
    env: { ROOT_ACCESS_KEY_ID: credentials.accessKeyId, ROOT_SECRET_ACCESS_KEY: credentials.secretAccessKey },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
  const destroy = async () => {
    client.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(() => answers(client), { what: `versitygw on port ${port}`, timeoutMs: 15_000 });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    await destroy();
    throw err;
  }
  return {
    storeConfig: {
      bucket,
      prefix: 'documents/',
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      serverSideEncryption: 'AES256',
      credentials,
    },
    client,
    destroy,
  };
}

async function answers(client: S3Client): Promise<boolean> {
  try {
    await client.send(new ListBucketsCommand({}));
    return true;
  } catch {
    return false;
  }
}
