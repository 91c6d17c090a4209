/** Lazily opened, shared connections to the real test database and Redis, closed once after the whole run. */
import { createDb, type Db } from '../../core/platform/db';
import { createRedis, type Redis } from '../../core/platform/redis';
import { testEnv } from './env';

let db: Db | undefined;
let redis: Redis | undefined;

export function testDb(): Db {
  db ??= createDb(testEnv.databaseUrl);
  return db;
}

export function testRedis(): Redis {
  redis ??= createRedis(testEnv.redisUrl);
  return redis;
}

export async function closeSharedResources(): Promise<void> {
  await Promise.allSettled([db?.destroy(), redis?.quit()]);
  db = undefined;
  redis = undefined;
}
