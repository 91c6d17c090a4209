/**
 * The debtor portal benchmark's debt (measured, not asserted): a tenant with its branding set, one debtor
 * and one debt on a running three-instalment plan (the first paid), with eight transactions and a live portal link.
 * Seeded afresh each run (a few rows) and removed afterwards in quick mode. Each run signs the debtor in through the
 * portal's own session store (core/portal/portal-sessions.ts) in the Redis the API reads, as the second factor would,
 * without the mail or the code.
 */
import { createOrganization } from '../../core/access/organizations';
import { updateBranding } from '../../core/branding/branding';
import { loadConfig } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import { newId } from '../../core/platform/ids';
import { createRedis, redisReady } from '../../core/platform/redis';
import { issuePortalLink } from '../../core/portal/links';
import { createPortalSessionStore, type PortalVisit } from '../../core/portal/portal-sessions';
import { portalCookieNames } from '../../web/portal/portal-context';

const TRANSACTIONS = 8;

export interface PortalDebt {
  visit: PortalVisit;
  /** The session's id, as the cookie carries it. */
  sessionId: string;
  /** The `Cookie` header of the verified visit. */
  cookie: string;
}

/** The tenant, its debtor and debt, the debt's live link. */
export async function seedPortalDebt(db: Db): Promise<PortalVisit> {
  const { id: organizationId } = await createOrganization(db, { name: 'bench portal', mode: 'production' });
  await updateBranding(db, organizationId, {
    logoUrl: 'https://cdn.example.com/bench/logo.png',
    faviconUrl: 'https://cdn.example.com/bench/favicon.ico',
    primaryColor: '#1a4d8f',
    secondaryColor: '#f4f6fa',
    brandTagline: 'Fair terms, plainly put',
    supportEmail: 'help@bench-lending.example.com',
    supportPhone: '+61 2 5550 1234',
    statementFooter: 'Bench Lending Pty Ltd, ABN 00 000 000 000',
  });
  const debtorId = newId();
  const debtId = newId();
  await db('debtors').insert({
    id: debtorId,
    organization_id: organizationId,
    reference_id: `BENCH-PORTAL-${debtorId}`,
    first_name: 'Bench',
    last_name: 'Debtor',
    email: `bench-portal-${debtorId}@example.com`,
  });
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const schedule = [
    { dueDate: day(-30), amount: '400.00', paid: '400.00' },
    { dueDate: day(0), amount: '400.00', paid: '0' },
    { dueDate: day(30), amount: '400.25', paid: '0' },
  ];
  await db('debts').insert({
    id: debtId,
    organization_id: organizationId,
    debtor_id: debtorId,
    external_account_id: `BENCH-PORTAL-${debtId}`,
    client_reference: 'LOAN-PORTAL-1',
    original_principal: '1200.25',
    outstanding_principal: '800.25',
    currency: 'AUD',
    status: 'Active',
    plan_status: 'Active',
    plan_frequency: 'Monthly',
    plan_instalment_amount: '400.00',
    plan_instalment_count: 3,
    plan_instalments_paid: 1,
    plan_next_due_date: day(0),
    plan_schedule: JSON.stringify(schedule),
  });
  await db('transactions').insert(
    Array.from({ length: TRANSACTIONS }, (_, i) => ({
      id: newId(),
      organization_id: organizationId,
      debt_id: debtId,
      direction: i % 4 === 3 ? 'Outbound' : 'Inbound',
      status: i % 4 === 2 ? 'Failed' : 'Succeeded',
      type: i % 4 === 3 ? 'Fee' : 'Payment',
      amount: '50.00',
      currency: 'AUD',
      processor_reference: `pi_bench_${i}`,
      created_at: new Date(Date.now() - (TRANSACTIONS - i) * 86_400_000),
    })),
  );
  const { linkId } = await issuePortalLink(db, { organizationId, debtId });
  return { organizationId, debtId, debtorId, linkId };
}

/** A verified visit of the debt, made by the portal's session store in the Redis at `redisUrl`. */
export async function signInToPortal(
  visit: PortalVisit,
  /** `secureCookies`: the cookie's `__Host-` name an https host uses (the production profile's), whatever APP_ENV is. */
  env: { databaseUrl: string; redisUrl: string; secureCookies?: boolean },
): Promise<PortalDebt> {
  const config = loadConfig({ ...process.env, DATABASE_URL: env.databaseUrl, REDIS_URL: env.redisUrl });
  const redis = createRedis(env.redisUrl);
  try {
    await redisReady(redis);
    const sessions = createPortalSessionStore({
      redis,
      mode: config.mode,
      settings: {
        idleTimeoutMs: config.portal.sessionIdleTimeoutMs,
        absoluteLifetimeMs: config.portal.sessionAbsoluteLifetimeMs,
      },
    });
    const sessionId = await sessions.create(visit);
    const cookie = `${portalCookieNames(env.secureCookies ?? config.console.secureCookies).session}=${sessionId}`;
    return { visit, sessionId, cookie };
  } finally {
    await redis.quit();
  }
}
