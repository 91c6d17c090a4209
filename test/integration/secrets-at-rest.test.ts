import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { testDb } from '../support/resources';

const PUBLIC_URL = 'https://93.184.215.14/hooks'; // a public address literal: no DNS needed

/** Every (table, column) of the test database's public schema that holds text or bytes. */
async function searchableColumns(): Promise<{ table: string; column: string; bytes: boolean }[]> {
  const rows = await testDb()('information_schema.columns')
    .where({ table_schema: 'public' })
    .whereIn('data_type', ['text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY', 'USER-DEFINED'])
    .select('table_name', 'column_name', 'data_type');
  return rows.map((r: { table_name: string; column_name: string; data_type: string }) => ({
    table: r.table_name,
    column: r.column_name,
    bytes: r.data_type === 'bytea',
  }));
}

/** The places (table.column) where `secret` is stored as plain text or plain bytes. */
async function wherePlaintext(secret: string): Promise<string[]> {
  const found: string[] = [];
  for (const { table, column, bytes } of await searchableColumns()) {
    const asText = bytes ? testDb().raw(`encode(??, 'escape')`, [column]) : testDb().raw(`??::text`, [column]);
    const [hit] = await testDb()(table)
      .whereRaw(`position(? in ?) > 0`, [secret, asText])
      .limit(1)
      .select<{ hit: number }[]>(testDb().raw('1 as hit'));
    if (hit) found.push(`${table}.${column}`);
  }
  return found;
}

describe('No plaintext webhook secret at rest, after every operation that mints one', function () {
  this.timeout(60_000);
  const ctx = useApiSuite();
  const put = (body: unknown, key: string) => ctx.api('PUT', '/v1/webhooks', body, { 'idempotency-key': key });

  it('finds the scan working: a secret written in plain text is found', async () => {
    const marker = `whsec_${randomUUID()}`;
    await testDb()('organizations').where({ id: ctx.tenant.organization.id }).update({ name: marker });
    expect(await wherePlaintext(marker)).to.deep.equal(['organizations.name']);
  });

  it('stores neither the first secret nor a rotated one in plain text, and replays return them byte for byte', async () => {
    const steps = [
      { name: 'first configure', body: { url: PUBLIC_URL }, key: randomUUID() },
      { name: 'rotation', body: { rotateSecret: true }, key: randomUUID() },
      { name: 'configure with rotation', body: { url: `${PUBLIC_URL}/2`, rotateSecret: true }, key: randomUUID() },
    ];
    for (const step of steps) {
      const minted = await put(step.body, step.key);
      expect(minted.status, minted.text).to.equal(200);
      const secret = minted.body.newSecret as string;
      expect(secret, step.name).to.match(/^whsec_/);
      expect(await wherePlaintext(secret), `${step.name}: stored in plain text`).to.deep.equal([]);

      const replay = await put(step.body, step.key);
      expect(replay.headers.get('idempotent-replayed'), step.name).to.equal('true');
      expect(replay.text, `${step.name}: replay`).to.equal(minted.text);
      expect(await wherePlaintext(secret), `${step.name} replayed: stored in plain text`).to.deep.equal([]);
    }
  });
});
