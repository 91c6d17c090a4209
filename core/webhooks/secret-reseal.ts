/**
 * Re-seals every stored webhook signing secret under the box's current key (`npm run cli -- secrets reseal`), the
 * last step of a key rotation: afterwards WEBHOOK_SECRET_KEY_PREVIOUS can be removed. Idempotent: a value already
 * under the current key is not touched, so a second run changes nothing. Rows are taken in key order, in small
 * transactions that lock only their batch, so the API and workers keep running meanwhile.
 */
import type { Db } from '../platform/db';
import { sealedSecretColumns, sealedSecretOf, SecretUnreadableError, type SecretBox } from '../platform/secret-box';

/** The tables that hold sealed secrets, each with its primary key; the associated data is the organisation id. */
const SEALED_TABLES = [
  { table: 'webhook_configs', key: 'organization_id' },
  { table: 'webhook_deliveries', key: 'id' },
] as const;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export type SealedTable = (typeof SEALED_TABLES)[number]['table'];

export interface ResealResult {
  table: SealedTable;
  resealed: number;
  /** Primary keys of values that open under no configured key (left as they are). */
  unreadable: string[];
}

interface SealedRow {
  pk: string;
  organization_id: string;
  secret_key_id: string | null;
  secret_iv: Buffer;
  secret_tag: Buffer;
  secret_ciphertext: Buffer;
}

export interface ResealOptions {
  /** Only this organisation's secrets (a staged rotation, or a test that must not touch other rows). */
  organizationId?: string;
  batchSize?: number;
}

export async function resealSecrets(db: Db, box: SecretBox, options: ResealOptions = {}): Promise<ResealResult[]> {
  const results: ResealResult[] = [];
  for (const { table, key } of SEALED_TABLES) {
    const result: ResealResult = { table, resealed: 0, unreadable: [] };
    let after = NIL_UUID;
    for (;;) {
      const batch = await db.transaction((trx) => resealBatch(trx, box, { table, key, after, ...options }, result));
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!;
    }
    results.push(result);
  }
  return results;
}

/** One batch after primary key `after`; returns the keys it looked at. */
async function resealBatch(
  trx: Db,
  box: SecretBox,
  batch: ResealOptions & { table: SealedTable; key: string; after: string },
  result: ResealResult,
): Promise<string[]> {
  const { table, key, after, organizationId } = batch;
  const rows = await trx(table)
    .select<SealedRow[]>(
      { pk: key },
      'organization_id',
      'secret_key_id',
      'secret_iv',
      'secret_tag',
      'secret_ciphertext',
    )
    .whereNotNull('secret_ciphertext')
    .whereRaw('(secret_key_id is null or secret_key_id <> ?)', [box.currentKeyId])
    .where(organizationId ? { organization_id: organizationId } : {})
    .andWhere(key, '>', after)
    .orderBy(key)
    .limit(batch.batchSize ?? 200)
    .forUpdate();
  for (const row of rows) {
    let plaintext: string;
    try {
      plaintext = box.open(sealedSecretOf(row), row.organization_id);
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      result.unreadable.push(row.pk);
      continue;
    }
    await trx(table)
      .where(key, row.pk)
      .update(sealedSecretColumns(box.seal(plaintext, row.organization_id)));
    result.resealed += 1;
  }
  return rows.map((row) => row.pk);
}
