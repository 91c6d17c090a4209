/** Redis client factory. Commands fail fast while disconnected so callers can fail open (DECISIONS.md §5). */
import { Redis } from 'ioredis';

export type { Redis };

export function createRedis(redisUrl: string): Redis {
  return new Redis(redisUrl, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // Keep trying to reconnect in the background, at most every 2 s.
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  });
}

export async function pingRedis(redis: Redis): Promise<void> {
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error(`unexpected PING answer: ${String(answer)}`);
}
