/**
 * Tells a tenant's reset workflow that the tenant is in use, at most once a minute per tenant (DECISIONS.md §6):
 * `SET NX` of a per-tenant Redis key that expires after the minute decides which request of all API processes
 * sends the signal. Never on a request's critical path: callers fire and forget, failures are logged. If Redis does
 * not answer, this process's own per-minute memory still bounds the signals, and the signal is sent (a tenant in use
 * must not be reset because Redis was down).
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from '../platform/logger';
import type { Redis } from '../platform/redis';
import type { SandboxResets } from './resets';

export const TOUCH_DEBOUNCE_MS = 60_000;
const REMEMBERED_TENANTS = 10_000;

export interface ActivityTouch {
  /** Resolves when done (tests wait for it); never rejects. */
  touch(organizationId: string): Promise<void>;
}

export function debounceKey(organizationId: string): string {
  return `sandbox:used:${organizationId}`;
}

export function createActivityTouch(deps: {
  redis: Redis;
  resets: Pick<SandboxResets, 'recordUse'>;
  logger: Logger;
  now?: () => number;
}): ActivityTouch {
  const { redis, resets, logger } = deps;
  const now = deps.now ?? Date.now;
  const signalledAt = new LRUCache<string, number>({ max: REMEMBERED_TENANTS });

  /** True when this request is the tenant's first of the minute across every API process. */
  async function firstOfMinute(organizationId: string): Promise<boolean> {
    try {
      const answer = await redis.set(debounceKey(organizationId), '1', 'PX', TOUCH_DEBOUNCE_MS, 'NX');
      return answer === 'OK';
    } catch (err) {
      logger.warn({ err: (err as Error).message, organizationId }, 'sandbox activity debounce unavailable; signalling');
      return true;
    }
  }

  return {
    async touch(organizationId) {
      const at = now();
      if (at - (signalledAt.get(organizationId) ?? -Infinity) < TOUCH_DEBOUNCE_MS) return;
      signalledAt.set(organizationId, at);
      try {
        if (await firstOfMinute(organizationId)) await resets.recordUse(organizationId);
      } catch (err) {
        logger.warn({ err: (err as Error).message, organizationId }, 'could not signal sandbox activity');
      }
    },
  };
}
