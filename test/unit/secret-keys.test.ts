import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../core/platform/config';
import { loadWorkerConfig } from '../../core/platform/worker-config';
import { createSecretBox, secretKeyId, SecretUnreadableError } from '../../core/platform/secret-box';

describe('webhook secret keys: no default in production, key ids, rotation', () => {
  const key = randomBytes(32).toString('base64');

  it('refuses to start in production (APP_ENV unset or production) without WEBHOOK_SECRET_KEY, saying why', () => {
    for (const env of [{}, { APP_ENV: 'production' }]) {
      for (const load of [() => loadConfig(env), () => loadWorkerConfig(env)]) {
        expect(load).to.throw(ConfigError, /WEBHOOK_SECRET_KEY is required outside development and tests/);
        expect(load).to.throw(/development key published in this repository/);
      }
    }
  });

  it('uses the development key only when APP_ENV is development or test', () => {
    const dev = loadConfig({ APP_ENV: 'development' }).webhooks.secretKeys!;
    expect(loadConfig({ APP_ENV: 'test' }).webhooks.secretKeys!.current.equals(dev.current)).to.equal(true);
    expect(loadConfig({ WEBHOOK_SECRET_KEY: key }).webhooks.secretKeys!.current.toString('base64')).to.equal(key);
    expect(() => loadConfig({ APP_ENV: 'staging' })).to.throw(ConfigError, /APP_ENV/);
  });

  it('lets migrations and the CLI load without a key (secretKeyOptional), with no box to build', () => {
    const config = loadConfig({}, { secretKeyOptional: true });
    expect(config.webhooks.secretKeys).to.equal(null);
    expect(() => createSecretBox(config.webhooks.secretKeys)).to.throw(/set WEBHOOK_SECRET_KEY/);
  });

  it('reads WEBHOOK_SECRET_KEY_PREVIOUS as the key being rotated out, and refuses it equal to the current one', () => {
    const previous = randomBytes(32).toString('base64');
    const keys = loadConfig({ WEBHOOK_SECRET_KEY: key, WEBHOOK_SECRET_KEY_PREVIOUS: previous }).webhooks.secretKeys!;
    expect(keys.previous!.toString('base64')).to.equal(previous);
    expect(() => loadConfig({ WEBHOOK_SECRET_KEY: key, WEBHOOK_SECRET_KEY_PREVIOUS: key })).to.throw(/equals/);
    expect(() => loadConfig({ WEBHOOK_SECRET_KEY: key, WEBHOOK_SECRET_KEY_PREVIOUS: 'short' })).to.throw(/32 bytes/);
  });

  it('seals under the current key, naming it, and opens under the current or the previous key', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const sealedOld = createSecretBox(oldKey).seal('whsec_old', 'org-1');
    expect(sealedOld.keyId)
      .to.equal(secretKeyId(oldKey))
      .and.to.match(/^[0-9a-f]{16}$/);

    const rotating = createSecretBox({ current: newKey, previous: oldKey });
    expect(rotating.currentKeyId).to.equal(secretKeyId(newKey));
    expect(rotating.open(sealedOld, 'org-1')).to.equal('whsec_old');
    expect(rotating.seal('whsec_new', 'org-1').keyId).to.equal(secretKeyId(newKey));

    const newOnly = createSecretBox(newKey);
    expect(() => newOnly.open(sealedOld, 'org-1')).to.throw(SecretUnreadableError, /not configured/);
  });

  it('opens a value sealed before key ids existed (no key id) under whichever configured key fits', () => {
    const oldKey = randomBytes(32);
    const { keyId: _dropped, ...legacy } = createSecretBox(oldKey).seal('whsec_legacy', 'org-1');
    const rotating = createSecretBox({ current: randomBytes(32), previous: oldKey });
    expect(rotating.open({ ...legacy, keyId: null }, 'org-1')).to.equal('whsec_legacy');
    expect(() => createSecretBox(randomBytes(32)).open(legacy, 'org-1')).to.throw(SecretUnreadableError);
  });
});
