/** Builds the configured `DocumentStore` (core/platform/document-config.ts); called once by an entry point. */
import type { DocumentStoreConfig } from '../platform/document-config';
import { LocalDocumentStore } from './local-store';
import { S3DocumentStore } from './s3-store';
import type { DocumentStore } from './store';

export function createDocumentStore(config: DocumentStoreConfig): DocumentStore {
  return config.kind === 'local' ? new LocalDocumentStore(config.directory) : new S3DocumentStore(config);
}
