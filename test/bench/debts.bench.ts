/**
 * `POST /v1/debts` with a fresh Idempotency-Key per request (so every request really writes: debtor, debt, its
 * outbox event, the idempotency record) against the bare route doing the same inserts in one transaction on the
 * plain driver. Target (issue 25): ≥ 0.8×. The tenant is new each run and removed afterwards (organisations cascade).
 */
import { randomUUID } from 'node:crypto';
import type autocannon from 'autocannon';
import { compare, figure } from './report';
import type { BenchContext } from './context';
import { sharedProcesses } from './cpu';
import { benchTenant, interleaved, load } from './support';

/** One request per call, with its own key and account: the same body for ours and the bare route. */
export function creating(headers: Record<string, string>): autocannon.Request[] {
  return [
    {
      method: 'POST',
      setupRequest: (request) => {
        const key = randomUUID();
        request.headers = { ...headers, 'content-type': 'application/json', 'idempotency-key': key };
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
  ];
}

export async function benchDebtCreation(ctx: BenchContext): Promise<void> {
  const { api, bare, db, duration, warmUp } = ctx;
  const tenant = await benchTenant(db, 'Bench POST');
  try {
    const ours = (label: string, seconds = duration) =>
      load(label, {
        url: `${api.baseUrl}/v1/debts`,
        duration: seconds,
        requests: creating({ authorization: tenant.authorization }),
        cpu: { api: () => [api.pid], ...sharedProcesses() },
      });
    const bareRoute = (label: string, seconds = duration) =>
      load(label, {
        url: `${bare.baseUrl}/debts`,
        duration: seconds,
        requests: creating({ 'x-org': tenant.organizationId }),
        cpu: { bare: () => [bare.pid], ...sharedProcesses() },
      });
    console.log('\nPOST /v1/debts with Idempotency-Key');
    await ours('warm-up', warmUp);
    await bareRoute('bare warm-up', warmUp); // the same warm-up as ours: connections, JIT
    // Interleaved: every insert-heavy load grows the tables and the WAL, and a checkpoint lands on whichever load
    // runs when it comes; run back to back, the two figures swung between 0.4× and 1.9× from run to run.
    const { created, bareCreated } = await interleaved(
      {
        created: (seconds) => ours('ours: POST /v1/debts, a fresh Idempotency-Key each', seconds),
        bareCreated: (seconds) => bareRoute('bare: the same inserts in one transaction', seconds),
      },
      duration,
    );
    compare(ctx.report, 'POST /v1/debts with Idempotency-Key', figure(created), figure(bareCreated), 0.8);
  } finally {
    await db('organizations').where({ id: tenant.organizationId }).delete();
  }
}
