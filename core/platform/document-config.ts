/**
 * The documents part of the configuration (config.ts reads it): which `DocumentStore` keeps uploaded bytes, and
 * where. `local` (the default) is a directory on this host; `s3` is a bucket on AWS or any S3-compatible server.
 */
import path from 'node:path';
import { bool, makeValidator, str } from 'envalid';
import type { Mode } from './mode';
import { PROJECT_ROOT } from './project-root';

export type DocumentStoreConfig =
  | { kind: 'local'; directory: string }
  | {
      kind: 's3';
      bucket: string;
      prefix: string;
      region: string;
      endpoint?: string;
      forcePathStyle: boolean;
      serverSideEncryption: 'AES256' | 'aws:kms';
      credentials?: { accessKeyId: string; secretAccessKey: string };
    };

const optionalUrl = makeValidator<string>((input) => {
  if (input === '') return '';
  if (!/^https?:\/\/[^\s/]+/.test(input)) throw new Error('expected an http(s):// URL, or empty');
  return input;
});

const keyPrefix = makeValidator<string>((input) => {
  if (input !== '' && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/.test(input))
    throw new Error('expected key segments ending in a slash, e.g. documents/, or empty');
  return input;
});

export const DOCUMENT_ENV = {
  DOCUMENT_STORE: str({ choices: ['local', 's3'], default: 'local', desc: 'where uploaded documents are kept' }),
  DOCUMENT_DIR: str({ default: '', desc: 'local store directory (mode appended); default .data/documents' }),
  S3_BUCKET: str({ default: '', desc: 'bucket of the s3 store (required with DOCUMENT_STORE=s3)' }),
  S3_PREFIX: keyPrefix({ default: 'documents/', desc: 'key prefix of the s3 store (mode appended)' }),
  S3_REGION: str({ default: 'us-east-1', desc: 'region of the s3 store' }),
  S3_ENDPOINT: optionalUrl({ default: '', desc: 'S3-compatible endpoint; empty for AWS' }),
  S3_FORCE_PATH_STYLE: bool({ default: false, desc: 'path-style addressing (S3-compatible servers)' }),
  S3_SERVER_SIDE_ENCRYPTION: str({ choices: ['AES256', 'aws:kms'], default: 'AES256', desc: 'SSE requested' }),
  S3_ACCESS_KEY_ID: str({ default: '', desc: 'static credentials; empty uses the SDK default chain' }),
  S3_SECRET_ACCESS_KEY: str({ default: '', desc: 'static credentials; empty uses the SDK default chain' }),
};

export interface DocumentEnv {
  DOCUMENT_STORE: string;
  DOCUMENT_DIR: string;
  S3_BUCKET: string;
  S3_PREFIX: string;
  S3_REGION: string;
  S3_ENDPOINT: string;
  S3_FORCE_PATH_STYLE: boolean;
  S3_SERVER_SIDE_ENCRYPTION: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
}

export function documentStoreConfig(e: DocumentEnv, mode: Mode, problems: string[]): DocumentStoreConfig {
  if (e.DOCUMENT_STORE === 'local') {
    // Each mode under its own directory (and prefix below): the orphan sweep of one mode's database must never
    // see the other mode's objects.
    return {
      kind: 'local',
      directory: path.join(path.resolve(PROJECT_ROOT, e.DOCUMENT_DIR || '.data/documents'), mode),
    };
  }
  if (e.S3_BUCKET === '') problems.push('S3_BUCKET is required when DOCUMENT_STORE is s3');
  if ((e.S3_ACCESS_KEY_ID === '') !== (e.S3_SECRET_ACCESS_KEY === ''))
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all');
  return {
    kind: 's3',
    bucket: e.S3_BUCKET,
    prefix: `${e.S3_PREFIX}${mode}/`,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT || undefined,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
    serverSideEncryption: e.S3_SERVER_SIDE_ENCRYPTION === 'aws:kms' ? 'aws:kms' : 'AES256',
    credentials:
      e.S3_ACCESS_KEY_ID === ''
        ? undefined
        : { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY },
  };
}
