/**
 * Debts under load (issue 4): `GET /v1/debts` (a page of 50) from a tenant with 1,000 debts and from one with
 * 100,000 — keyset pagination should make them cost the same — and `POST /v1/debts` with a fresh Idempotency-Key
 * per request (so every request really writes: debt, event, idempotency record). Ratios are to the trivial route.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../core/platform/db';
import { seedDebts } from './seed-debts';
import { benchTenant, load, printTable, type ApiProcess, type BenchTenant, type LoadResult } from './support';

export async function benchDebts(
  db: Db,
  api: ApiProcess,
  duration: number,
  trivial: LoadResult,
): Promise<LoadResult[]> {
  const small = await benchTenant(db, 'Bench 1k');
  const large = await benchTenant(db, 'Bench 100k');
  try {
    return await measure(db, api, duration, trivial, small, large);
  } finally {
    // The bench shares the test database: take its 101,000 debts away again (organisations cascade).
    await db('organizations').whereIn('id', [small.organizationId, large.organizationId]).delete();
  }
}

async function measure(
  db: Db,
  api: ApiProcess,
  duration: number,
  trivial: LoadResult,
  small: BenchTenant,
  large: BenchTenant,
): Promise<LoadResult[]> {
  const seedStarted = Date.now();
  await seedDebts(db, small.organizationId, 1_000);
  await seedDebts(db, large.organizationId, 100_000);
  console.log(`\nseeded 1,000 + 100,000 debts in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);

  const list = (tenant: { authorization: string }, name: string) =>
    load(name, { url: `${api.baseUrl}/v1/debts?limit=50`, headers: { authorization: tenant.authorization }, duration });
  await list(large, 'warm-up'); // JIT and pools, not measured
  const listSmall = await list(small, 'GET /v1/debts?limit=50, tenant with 1,000 debts');
  const listLarge = await list(large, 'GET /v1/debts?limit=50, tenant with 100,000 debts');
  const deepCursor = await cursorAtPage(api, large.authorization, 1_000);
  const listDeep = await load('GET /v1/debts?limit=50&cursor=<page 1,000 of 2,000>, 100,000 debts', {
    url: `${api.baseUrl}/v1/debts?limit=50&cursor=${deepCursor}`,
    headers: { authorization: large.authorization },
    duration,
  });

  const create = await load('POST /v1/debts with a fresh Idempotency-Key each', {
    url: `${api.baseUrl}/v1/debts`,
    duration,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const key = randomUUID();
          request.headers = {
            authorization: small.authorization,
            'content-type': 'application/json',
            'idempotency-key': key,
          };
          request.body = JSON.stringify({
            debtorReferenceId: `BENCH-POST-${key.slice(0, 8)}`,
            debtorFirstName: 'Bench',
            debtorLastName: 'Poster',
            debtorEmail: 'bench.poster@example.com',
            originalPrincipal: 1250.5,
            currency: 'AUD',
            externalAccountId: `ACCT-${key}`,
          });
          return request;
        },
      },
    ],
  });
  printTable('Debts', [trivial, listSmall, listLarge, listDeep, create], trivial);
  const growth = listLarge.p50 / listSmall.p50;
  console.log(`list p50 at 100,000 debts / at 1,000 debts: ${growth.toFixed(2)} (flat is ~1)`);
  return [listSmall, listLarge, listDeep, create];
}

/** Follows cursors `pages` deep, to show a deep page costs what the first page costs. */
async function cursorAtPage(api: ApiProcess, authorization: string, pages: number): Promise<string> {
  let cursor = '';
  for (let page = 0; page < pages; page++) {
    const res = await fetch(`${api.baseUrl}/v1/debts?limit=50${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { authorization },
    });
    const body = (await res.json()) as { nextCursor: string | null };
    if (!body.nextCursor) break;
    cursor = body.nextCursor;
  }
  return cursor;
}
