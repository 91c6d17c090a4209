/** Where the tests find the real services; scripts/test.sh sets these, the defaults match scripts/bootstrap.sh. */
import os from 'node:os';
import path from 'node:path';

const cacheDir = process.env.CLIENT_API_CACHE ?? path.join(os.homedir(), '.cache', 'client-public-api');

export const testEnv = {
  databaseUrl: process.env.TEST_DATABASE_URL ?? 'postgres://client_api:client_api@127.0.0.1:5433/client_api_test',
  redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15',
  temporalCliPath: process.env.TEMPORAL_CLI_PATH ?? path.join(cacheDir, 'bin', 'temporal'),
  temporalTestServerPath: process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(cacheDir, 'bin', 'temporal-test-server'),
  chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
};
