/**
 * Where the tests find the real services. scripts/test.sh sets these; the defaults match scripts/bootstrap.sh. The
 * tests' own PostgreSQL clusters (5433 and up) and Redis server (6380), never the development stack's.
 *
 * Each test process works in its own slot (test-slot.ts): `databaseUrl` is the slot's copy of the migrated template
 * database (made by `prepareTestSlot`, a root hook) and `redisUrl` the slot's Redis database. `TEST_DATABASE_URL` or
 * `TEST_REDIS_URL`, when set, name one database to use as it is instead (the bench's and the fuzzer's runs).
 */
import path from 'node:path';
import { cacheDir, testSlot } from './test-slot';

/**
 * The tests' PostgreSQL servers (scripts/lib/postgres.sh): `TEST_POSTGRES_SERVERS` of them on consecutive ports from
 * the template URL's. The outbox horizon is per server, so test processes side by side each get one of their own
 * (slot N the ((N - 1) mod count)-th): a transaction open in one's database never hides another's new events.
 */
const postgresServers = Number(process.env.TEST_POSTGRES_SERVERS ?? 4);

/** The migrated database this process's database is copied from, on the server of its slot. */
export const templateDatabaseUrl = (() => {
  const url = new URL(
    process.env.TEST_TEMPLATE_DATABASE_URL ?? 'postgres://client_api:client_api@127.0.0.1:5433/client_api_test',
  );
  if (process.env.TEST_DATABASE_URL === undefined) {
    url.port = String(Number(url.port || 5432) + ((testSlot() - 1) % postgresServers));
  }
  return url.toString();
})();
const redisServerUrl = process.env.TEST_REDIS_SERVER_URL ?? 'redis://127.0.0.1:6380';

function slotDatabaseUrl(): string {
  const url = new URL(templateDatabaseUrl);
  url.pathname = `${url.pathname}_s${testSlot()}`;
  return url.toString();
}

export const testEnv = {
  databaseUrl: process.env.TEST_DATABASE_URL ?? slotDatabaseUrl(),
  redisUrl: process.env.TEST_REDIS_URL ?? `${redisServerUrl}/${testSlot()}`,
  /** Whether `databaseUrl` is this process's slot copy (made fresh by `prepareTestSlot`), not a named database. */
  slotDatabase: process.env.TEST_DATABASE_URL === undefined,
  temporalCliPath: process.env.TEMPORAL_CLI_PATH ?? path.join(cacheDir, 'bin', 'temporal'),
  temporalTestServerPath: process.env.TEMPORAL_TEST_SERVER_PATH ?? path.join(cacheDir, 'bin', 'temporal-test-server'),
  chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
};
