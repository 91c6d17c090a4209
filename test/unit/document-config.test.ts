/** The documents part of the configuration (core/platform/document-config.ts), through loadConfig. */
import { expect } from 'chai';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../core/platform/config';

const base = { APP_ENV: 'test' };

describe('document store configuration', () => {
  it('defaults to the local store, one directory per mode', () => {
    const production = loadConfig(base).documents;
    const sandbox = loadConfig({ ...base, API_MODE: 'sandbox' }).documents;
    expect(production.kind).to.equal('local');
    expect(production.kind === 'local' && path.basename(production.directory)).to.equal('production');
    expect(sandbox.kind === 'local' && path.basename(sandbox.directory)).to.equal('sandbox');
  });

  it('builds the s3 store with the mode under the prefix, SSE requested', () => {
    const config = loadConfig({
      ...base,
      DOCUMENT_STORE: 's3',
      S3_BUCKET: 'proofs',
      S3_ENDPOINT: 'http://127.0.0.1:7070',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'a',
      S3_SECRET_ACCESS_KEY: 'b',
    }).documents;
    expect(config).to.deep.equal({
      kind: 's3',
      bucket: 'proofs',
      prefix: 'documents/production/',
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:7070',
      forcePathStyle: true,
      serverSideEncryption: 'AES256',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
  });

  it('names every bad or missing s3 setting', () => {
    expect(() => loadConfig({ ...base, DOCUMENT_STORE: 's3' })).to.throw(ConfigError, /S3_BUCKET is required/);
    expect(() => loadConfig({ ...base, DOCUMENT_STORE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'a' })).to.throw(
      ConfigError,
      /set together/,
    );
    expect(() => loadConfig({ ...base, DOCUMENT_STORE: 'ftp' })).to.throw(ConfigError, /DOCUMENT_STORE is invalid/);
    expect(() => loadConfig({ ...base, S3_PREFIX: '../x' })).to.throw(ConfigError, /S3_PREFIX is invalid/);
    expect(() => loadConfig({ ...base, S3_SERVER_SIDE_ENCRYPTION: 'none' })).to.throw(ConfigError, /S3_SERVER_SIDE/);
  });
});
