/**
 * Redis client factory. Commands fail fast while disconnected, and time out when a connected Redis does not answer
 * (a paused or wedged server keeps the TCP connection open), so callers can fail open (DECISIONS.md §5).
 */
import { Redis } from 'ioredis';

export type { Redis };

/** Bounds what a hung Redis adds to a request: the rate limit check then fails open within this. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

export function createRedis(redisUrl: string): Redis {
  return new Redis(redisUrl, {
    lazyConnect: false,
    enableOfflineQueue: false,
    // Each command is written when issued. Auto-pipelining (concurrent requests' commands in one write) saved Redis
    // ~6 µs of CPU a request but cost the API ~5–10 µs more of ioredis's own work, and the API is the tier that runs
    // many processes (docs/operators/performance.md). Unpipelined, a command is never held unsent behind
    // another's round trip, so `commandTimeout` bounds it from when it was issued.
    enableAutoPipelining: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // Keep trying to reconnect in the background, at most every 2 s.
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  });
}

/**
 * `work` (Redis commands), or the error ioredis gives a command that timed out, once REDIS_COMMAND_TIMEOUT_MS have
 * passed: a bound on several commands as a whole (a session's read and its expiry push), where commandTimeout bounds
 * each. (It was first needed under auto-pipelining, since turned off: a command waited unsent while the pipeline
 * before it was in flight, and with Redis paused took twice the bound.) The command itself is not cancelled; its
 * answer, if one ever comes, is dropped.
 */
export async function withinCommandTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('Command timed out')), REDIS_COMMAND_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined); // a late rejection of the dropped work is not unhandled
  }
}

/** Resolves once the client is connected (commands fail fast until then: the offline queue is off). */
export async function redisReady(redis: Redis, timeoutMs = 2_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onEnd = () => done(new Error('redis connection ended'));
    const timer = setTimeout(() => done(new Error(`redis not ready after ${timeoutMs} ms`)), timeoutMs);
    redis.once('ready', onReady);
    redis.once('end', onEnd);
  });
}

/** Liveness probe for /healthz; callers bound it with their own timeout. */
export async function pingRedis(redis: Redis): Promise<void> {
  await redisReady(redis);
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error(`unexpected PING answer: ${String(answer)}`);
}
