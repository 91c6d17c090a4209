import { loadConfig } from '../../core/platform/config';
import { createSecretBox, type SecretBox } from '../../core/platform/secret-box';

/** The box a test stack's processes build from the test configuration's key (WEBHOOK_SECRET_KEY's test default). */
export function testSecretBox(): SecretBox {
  return createSecretBox(loadConfig({ APP_ENV: 'test' }).webhooks.secretKeys);
}
