/**
 * The API contract's cost: authenticated, rate-limited `GET /v1/organization` against the unauthenticated trivial
 * `GET /` on the same server process, in the same run. Target: the first sustains at least half the second's rate.
 */
import type { Db } from '../../core/platform/db';
import { benchTenant, load, printTable, type ApiProcess, type LoadResult } from './support';

export async function benchApiContract(db: Db, api: ApiProcess, duration: number): Promise<LoadResult[]> {
  const { authorization } = await benchTenant(db, 'Bench Org');
  // Warm both paths (JIT, pools, key cache) before measuring.
  await load('warm-up', {
    url: `${api.baseUrl}/v1/organization`,
    headers: { authorization },
    duration: 2,
  });
  const trivial = await load('GET / (unauthenticated, trivial)', { url: `${api.baseUrl}/`, duration });
  const authenticated = await load('GET /v1/organization (key auth + rate limit; org loaded with key)', {
    url: `${api.baseUrl}/v1/organization`,
    headers: { authorization },
    duration,
  });
  printTable('API contract', [trivial, authenticated], trivial);
  const ratio = authenticated.requestsPerSecond / trivial.requestsPerSecond;
  console.log(
    `authenticated / trivial throughput: ${ratio.toFixed(2)} (target ≥ 0.50: ${ratio >= 0.5 ? 'met' : 'NOT met'})`,
  );
  return [trivial, authenticated];
}
