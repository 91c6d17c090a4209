/**
 * The debtor portal reads branding through Redis (DECISIONS.md §2). `PATCH /v1/organization/branding` commits, then
 * invalidates, then answers, so a portal read that starts after the PATCH answered never sees the old branding.
 *
 * A plain "delete on write" is not enough: a portal read that loaded the old row from the database just before the
 * commit could write it into the cache just after the delete, and it would stay there until it expired. So each
 * organisation has a generation counter. A reader notes the generation before reading the database and stores its
 * result only if the generation is still the same (one atomic script); invalidation bumps the generation, which also
 * makes any entry written under an older generation a miss.
 */
import { getBranding, type Branding } from './branding';
import type { Db } from '../platform/db';
import type { Redis } from '../platform/redis';

/** An upper bound on staleness should an invalidation ever be lost (e.g. Redis restored from a snapshot). */
export const BRANDING_CACHE_TTL_SECONDS = 300;

export function brandingCacheKey(organizationId: string): string {
  return `portal:branding:${organizationId}`;
}

function generationKey(organizationId: string): string {
  return `portal:branding-generation:${organizationId}`;
}

interface CacheEntry {
  generation: string;
  branding: Branding;
}

// KEYS[1] generation, KEYS[2] entry; ARGV[1] the generation seen before the database read, ARGV[2] entry, ARGV[3] TTL.
const STORE_IF_CURRENT = `
if (redis.call('GET', KEYS[1]) or '0') == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0`;

/**
 * Branding for the debtor portal: from the cache when current, else from the database (then cached). If Redis is
 * unreachable the portal still gets branding, straight from the database.
 */
export async function getPortalBranding(db: Db, redis: Redis, organizationId: string): Promise<Branding> {
  let generation: string;
  try {
    const [seen, raw] = await redis.mget(generationKey(organizationId), brandingCacheKey(organizationId));
    generation = seen ?? '0';
    const entry = raw ? (JSON.parse(raw) as CacheEntry) : undefined;
    if (entry && entry.generation === generation) return entry.branding;
  } catch {
    return getBranding(db, organizationId);
  }
  const branding = await getBranding(db, organizationId);
  const entry: CacheEntry = { generation, branding };
  await redis
    .eval(
      STORE_IF_CURRENT,
      2,
      generationKey(organizationId),
      brandingCacheKey(organizationId),
      generation,
      JSON.stringify(entry),
      BRANDING_CACHE_TTL_SECONDS,
    )
    .catch(() => undefined); // a cache that could not be filled is only a miss next time
  return branding;
}

/** Makes every cached copy of the organisation's branding stale. Throws if Redis cannot be told. */
export async function invalidatePortalBranding(redis: Redis, organizationId: string): Promise<void> {
  const results = await redis.multi().incr(generationKey(organizationId)).del(brandingCacheKey(organizationId)).exec();
  const failed = (results ?? []).find(([err]) => err);
  if (!results || failed) throw failed?.[0] ?? new Error('branding cache invalidation was not executed');
}
