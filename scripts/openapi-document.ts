/** The OpenAPI document as the code generates it under the default configuration, formatted for committing. */
import { createApp } from '../api/app';
import { loadConfig } from '../core/platform/config';
import { createDb } from '../core/platform/db';
import { createLogger } from '../core/platform/logger';
import { createRedis } from '../core/platform/redis';
import { createSecretBox } from '../core/platform/secret-box';
import { createDebtTriggers } from '../core/lifecycle/triggers';
import { createTemporalClient } from '../core/temporal/connection';

export function generatedOpenApiJson(): string {
  // Building the app connects nothing until a request arrives: the pool and Redis client are created lazily here
  // and closed right after.
  const config = loadConfig({ APP_ENV: 'development' });
  const db = createDb(config.databaseUrl);
  const redis = createRedis('redis://127.0.0.1:1');
  redis.on('error', () => undefined);
  try {
    const { openApiDocument } = createApp({
      config,
      logger: createLogger({ level: 'silent', name: 'openapi' }),
      db,
      redis,
      secretBox: createSecretBox(config.webhooks.secretKeys),
      checkTemporal: async () => undefined,
      // Lazy: no connection is made unless a trigger runs, and none does while building the document.
      debtTriggers: createDebtTriggers({
        db,
        client: createTemporalClient(config.temporal.address, config.temporal.namespace),
        mode: config.mode,
      }),
    });
    return `${JSON.stringify(openApiDocument, null, 2)}\n`;
  } finally {
    redis.disconnect();
    void db.destroy();
  }
}
