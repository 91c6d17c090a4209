/** `npm run cli -- secrets reseal`: after a key rotation, every stored webhook secret moves to the current key. */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createSecretBox, sealedSecretOf, secretKeyId, type SecretBox } from '../../core/platform/secret-box';
import { createTestPing } from '../../core/webhooks/dispatch';
import { setWebhookUrl, type WebhookConfigRow } from '../../core/webhooks/receiver-config';
import { runCommand } from '../../scripts/cli/commands';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

async function reseal(box: SecretBox, organizationId: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCommand(['secrets', 'reseal', '--org', organizationId], {
    db: testDb(),
    mode: 'production',
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    secretBox: () => box,
    temporal: () => {
      throw new Error('secrets reseal needs no Temporal client');
    },
  });
  return { code, out, err };
}

type SealedColumns = Pick<
  WebhookConfigRow,
  'organization_id' | 'secret_key_id' | 'secret_iv' | 'secret_tag' | 'secret_ciphertext'
>;

async function sealedRows(organizationId: string): Promise<SealedColumns[]> {
  const db = testDb();
  const columns = ['organization_id', 'secret_key_id', 'secret_iv', 'secret_tag', 'secret_ciphertext'] as const;
  const config = await db('webhook_configs')
    .where({ organization_id: organizationId })
    .select(...columns);
  const deliveries = await db('webhook_deliveries')
    .where({ organization_id: organizationId })
    .select(...columns);
  return [...config, ...deliveries] as SealedColumns[];
}

describe('secrets reseal (operator CLI)', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  let organizationId: string;

  beforeEach(async () => {
    organizationId = (await createTestTenant()).organization.id;
  });
  afterEach(async () => {
    await testDb()('webhook_deliveries').where({ organization_id: organizationId }).delete();
  });

  it('re-seals configs and delivery snapshots under the new key, legacy rows without a key id included, and is idempotent', async () => {
    const oldBox = createSecretBox(oldKey);
    const { newSecret } = await testDb().transaction((trx) =>
      setWebhookUrl(trx, oldBox, organizationId, 'https://93.184.215.14/hooks'),
    );
    await testDb().transaction((trx) => createTestPing(trx, organizationId));
    // A snapshot written before key ids existed.
    await testDb()('webhook_deliveries').where({ organization_id: organizationId }).update({ secret_key_id: null });

    const first = await reseal(createSecretBox({ current: newKey, previous: oldKey }), organizationId);
    expect(first).to.deep.include({ code: 0, err: [] });
    expect(first.out).to.deep.equal([
      `webhook_configs: resealed 1 under key ${secretKeyId(newKey)}`,
      `webhook_deliveries: resealed 1 under key ${secretKeyId(newKey)}`,
    ]);
    const rows = await sealedRows(organizationId);
    expect(rows).to.have.length(2);
    const newOnly = createSecretBox(newKey);
    for (const row of rows) {
      expect(row.secret_key_id).to.equal(secretKeyId(newKey));
      expect(newOnly.open(sealedSecretOf(row), organizationId)).to.equal(newSecret);
    }

    const second = await reseal(createSecretBox({ current: newKey, previous: oldKey }), organizationId);
    expect(second.out).to.deep.equal([
      `webhook_configs: resealed 0 under key ${secretKeyId(newKey)}`,
      `webhook_deliveries: resealed 0 under key ${secretKeyId(newKey)}`,
    ]);
    expect(await sealedRows(organizationId)).to.deep.equal(rows);
  });

  it('names the rows no configured key opens, leaves them as they are, and exits 1', async () => {
    await testDb().transaction((trx) =>
      setWebhookUrl(trx, createSecretBox(oldKey), organizationId, 'https://93.184.215.14/hooks'),
    );
    const result = await reseal(createSecretBox(newKey), organizationId);
    expect(result.code).to.equal(1);
    expect(result.err).to.deep.equal([`webhook_configs ${organizationId}: opens under no configured key; left as is`]);
    expect((await sealedRows(organizationId))[0]!.secret_key_id).to.equal(secretKeyId(oldKey));
  });
});
