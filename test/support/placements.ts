/** A placement as the upload leaves it (its file in the store, its row `Validating`), for the workflow and crash tests. */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DocumentStore } from '../../core/documents/store';
import { newId } from '../../core/platform/ids';
import { insertPlacement, MAX_PLACEMENT_BYTES } from '../../core/placements/placements';
import { readHeader, type PlacementFormat } from '../../core/placements/row-reader';
import { testDb } from './resources';

/** Recorded histories of `placement-<id>` (test/workflows/placement.test.ts writes them), replayed by CI. */
export const PLACEMENT_HISTORIES_DIR = join(__dirname, '..', 'workflows', 'histories', 'placement');

export const PLACEMENT_HEADER =
  'externalAccountId,originalPrincipal,currency,debtorReferenceId,debtorFirstName,debtorLastName,debtorEmail';

/** Good CSV row `i` (of PLACEMENT_HEADER's columns): its own account and inline debtor with an email. */
export function goodRow(prefix: string, i: number): string {
  return `${prefix}-${i},${10 + i},AUD,${prefix}-D-${i},Ann,Lee,ann.${prefix.toLowerCase()}.${i}@example.com`;
}

/** `count` good CSV rows, each its own account and debtor (`prefix` keeps files apart). */
export function goodRows(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => goodRow(prefix, i));
}

export async function storePlacement(
  store: DocumentStore,
  organizationId: string,
  text: string,
  options: { format?: PlacementFormat; validateOnly?: boolean } = {},
): Promise<{ organizationId: string; placementId: string }> {
  const format = options.format ?? 'csv';
  const stored = await store.put(organizationId, Readable.from([Buffer.from(text)]), MAX_PLACEMENT_BYTES);
  const columns = format === 'csv' ? await readHeader(await store.get(stored.key), 'csv') : null;
  const id = newId();
  await testDb().transaction((trx) =>
    insertPlacement(trx, organizationId, {
      id,
      format,
      fileName: 'accounts.csv',
      validateOnly: options.validateOnly ?? false,
      columns,
      stored,
    }),
  );
  return { organizationId, placementId: id };
}
