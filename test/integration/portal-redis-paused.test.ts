/**
 * The debtor portal while its Redis accepts connections but never answers (SIGSTOP; measured, not
 * asserted: what the debt page does then). The session lives only in Redis, so a verified visit cannot be served:
 * every request answers the portal's 503 page — never a 500, never a hang — and the pages come back once Redis does.
 * The branding cache fails open to the database. The API is a real process on a redis-server of the test's own (the
 * machine's shared Redis is never paused); how fast the 503 comes is measured by `npm run bench` (BENCH_ONLY=portal).
 */
import { expect } from 'chai';
import { getPortalBranding } from '../../core/branding/portal-cache';
import { createDb, type Db } from '../../core/platform/db';
import { createRedis, redisReady, type Redis } from '../../core/platform/redis';
import type { PortalVisit } from '../../core/portal/portal-sessions';
import { seedPortalDebt, signInToPortal, type PortalDebt } from '../bench/seed-portal';
import { testEnv } from '../support/env';
import { startOwnRedis, type OwnRedis } from '../support/own-redis';
import { killGroup } from '../support/processes';
import { startApi, type ApiProcess } from '../support/service-processes';
import { waitFor } from '../support/wait';

/** A deadline, not a timing: a request still open after it is a hang, and fails the test instead of stalling it. */
const HANG_MS = 10_000;
/** What the seeded branding writes on the debt page. */
const BRANDED = 'Fair terms, plainly put';

describe('debtor portal with Redis paused', function () {
  this.timeout(120_000);
  let db: Db;
  let redis: OwnRedis;
  let api: ApiProcess;
  let visit: PortalVisit;
  let signed: PortalDebt;

  before(async () => {
    db = createDb(testEnv.databaseUrl);
    redis = await startOwnRedis();
    api = await startApi({ API_MODE: 'production', DATABASE_URL: testEnv.databaseUrl, REDIS_URL: redis.url });
    visit = await seedPortalDebt(db);
    signed = await signInToPortal(visit, { databaseUrl: testEnv.databaseUrl, redisUrl: redis.url });
  });
  after(async () => {
    redis?.resume();
    killGroup(api);
    await api?.exited;
    await redis?.destroy();
    if (visit) await db('organizations').where({ id: visit.organizationId }).delete();
    await db?.destroy();
  });

  const debtPage = async () => {
    const res = await fetch(`${api.baseUrl}/portal/debt`, {
      headers: { cookie: signed.cookie },
      redirect: 'manual',
      signal: AbortSignal.timeout(HANG_MS),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  it('answers every request with the 503 page while paused, and the branded page once Redis answers again', async () => {
    // A process that has just started answers 503 until its Redis connection is up (`GET /`, which startApi waits
    // for, needs no dependency): the branded page first, once it answers.
    const before = await waitFor(
      async () => {
        const page = await debtPage();
        return page.status === 200 && page;
      },
      { what: 'the debt page of the freshly started API' },
    );
    expect(before.text).to.contain(BRANDED);

    redis.pause();
    try {
      // Requests arriving together, as under load: each one queued behind the others' Redis commands still answers.
      const answers = await Promise.all(Array.from({ length: 20 }, debtPage));
      for (const answer of answers) {
        expect(answer.status, answer.text).to.equal(503);
        expect(answer.type).to.match(/^text\/html/);
        expect(answer.text).to.contain('Please try again shortly');
        expect(answer.text).not.to.contain(BRANDED); // no visit, so nothing of the creditor
      }
      const alone = await debtPage();
      expect(alone.status, alone.text).to.equal(503);
    } finally {
      redis.resume();
    }
    await waitFor(async () => (await debtPage()).status === 200, { what: 'the debt page once Redis answers' });
    expect((await debtPage()).text).to.contain(BRANDED);
  });

  it('reads branding from the database while the cache does not answer (fails open)', async () => {
    const client: Redis = createRedis(redis.url);
    try {
      await redisReady(client);
      redis.pause();
      try {
        const branding = await getPortalBranding(db, client, visit.organizationId);
        expect(branding.brandTagline).to.equal(BRANDED);
      } finally {
        redis.resume();
      }
    } finally {
      client.disconnect();
    }
  });
});
