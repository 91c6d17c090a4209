/**
 * Debtor mail under one tenant's bulk raise (issue 38, item 1): one tenant raises `busyDebts` debts with a debtor
 * email each, in small transactions, as fast as it can; while they are being mailed, another tenant raises 20,
 * one at a time, spread over the drain. The lifecycle worker's notifications consumer runs in its own process
 * (mail-worker.ts: its relay, the dispatcher, the pooled transport with the default SMTP settings) and mails the
 * portal links to a maildev sink (the one `npm start` runs, here in the bench process). Printed: the rate at which
 * the busy tenant's mail was handed to the sink (goal ≥ 50/s), the other tenant's latency from its debt's commit to
 * its mail accepted by the sink (p99 over 20, goal ≤ 30 s), the worker's CPU per mail (what the machine's load
 * cannot change much: a rate on a busy shared machine is the machine's) and its peak memory.
 */
import { readFileSync } from 'node:fs';
import { createOrganization } from '../../core/access/organizations';
import { createDebt } from '../../core/debts/debt-creation';
import { DEBTOR_NOTIFICATIONS_CONSUMER } from '../../core/notifications/notifications-consumer';
import { createDb, type Db } from '../../core/platform/db';
import { inlineDebtBody } from '../support/debt-api';
import { NO_TEMPORAL_ADDRESS } from '../support/isolation';
import { startMailSink } from '../support/mail-sink';
import { waitFor } from '../support/wait';
import { check, observe, recordMemory, type BenchReport } from './report';
import { peakMemoryMiB, percentile, startBenchProcess } from './support';

export interface MailBenchOptions {
  report: BenchReport;
  databaseUrl: string;
  /** The busy tenant's debts (10,000). */
  busyDebts?: number;
  /** The other tenant's debts, raised one at a time while the busy tenant's are mailed (20). */
  quietDebts?: number;
  /** Between two of the other tenant's debts (2 s). */
  quietEveryMs?: number;
}

/**
 * The busy tenant's debts per transaction. Small, as the API's are one per request: a long transaction holds the
 * outbox horizon (core/events/cursor.ts), and the other tenant's events committed meanwhile would wait behind it for
 * reasons that have nothing to do with mail.
 */
const RAISE_BATCH = 20;

/** CPU a process has used so far (user + system), µs, from /proc (Linux; USER_HZ 100). */
function cpuUsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function raise(db: Db, organizationId: string, count: number, tag: string): Promise<void> {
  await db.transaction(async (trx) => {
    for (let i = 0; i < count; i++) {
      const body = inlineDebtBody({
        originalPrincipal: '100.00',
        debtorEmail: `${tag}.${i}.${Date.now()}@example.com`,
      });
      await createDebt(trx, organizationId, body);
    }
  });
}

interface Handled {
  handled: number;
  firstHandled: Date | null;
  lastHandled: Date | null;
  firstCreated: Date | null;
}

async function handledOf(db: Db, organizationId: string): Promise<Handled> {
  const row = await db('debtor_notifications')
    .where({ organization_id: organizationId })
    .whereNotIn('status', ['pending', 'sending'])
    .first<{ handled: string; first_handled: Date | null; last_handled: Date | null; first_created: Date | null }>(
      db.raw('count(*) as handled'),
      db.raw('min(handled_at) as first_handled'),
      db.raw('max(handled_at) as last_handled'),
      db.raw('min(created_at) as first_created'),
    );
  return {
    handled: Number(row?.handled ?? 0),
    firstHandled: row?.first_handled ?? null,
    lastHandled: row?.last_handled ?? null,
    firstCreated: row?.first_created ?? null,
  };
}

export async function benchMail(options: MailBenchOptions): Promise<void> {
  const { report, databaseUrl } = options;
  const busyDebts = options.busyDebts ?? 10_000;
  const quietDebts = options.quietDebts ?? 20;
  const quietEveryMs = options.quietEveryMs ?? 2_000;
  const db = createDb(databaseUrl, { pool: { min: 0, max: 4 } });
  const sink = await startMailSink();
  const busy = await createOrganization(db, { name: 'bench-mail-busy', mode: 'production' });
  const quiet = await createOrganization(db, { name: 'bench-mail-quiet', mode: 'production' });
  // The consumer starts at the events committed from now (the database holds other scenarios' and tests' events).
  await db.raw(
    `insert into outbox_cursors (consumer, mode, txid, seq)
     values (?, 'production', pg_snapshot_xmin(pg_current_snapshot()), 0)
     on conflict (consumer, mode) do update set txid = excluded.txid, seq = 0`,
    [DEBTOR_NOTIFICATIONS_CONSUMER],
  );
  const worker = await startBenchProcess('test/bench/mail-worker.ts', {
    WORKER_MODES: 'production',
    PRODUCTION_DATABASE_URL: databaseUrl,
    DATABASE_URL: databaseUrl,
    SMTP_URL: sink.smtpUrl,
    TEMPORAL_ADDRESS: NO_TEMPORAL_ADDRESS,
    LOG_LEVEL: process.env.BENCH_MAIL_LOG_LEVEL ?? 'warn',
  });
  try {
    console.log(
      `\nmail: ${busyDebts} debts of one tenant, ${quietDebts} of another meanwhile (worker pid ${worker.pid})`,
    );
    const workerCpuAtStart = cpuUsOf(worker.pid); // its start-up (loading modules) is not the mail's
    const started = Date.now();
    const raisingBusy = (async () => {
      for (let done = 0; done < busyDebts; done += RAISE_BATCH)
        await raise(db, busy.id, Math.min(RAISE_BATCH, busyDebts - done), 'busy');
    })();
    // The other tenant's debts start once the busy tenant's mail is flowing, and are spread over its drain.
    await waitFor(async () => (await handledOf(db, busy.id)).handled > 0, {
      what: 'the busy tenant’s first mail',
      timeoutMs: 10 * 60_000,
      intervalMs: 200,
    });
    for (let i = 0; i < quietDebts; i++) {
      await raise(db, quiet.id, 1, 'quiet');
      await sleep(quietEveryMs);
    }
    await raisingBusy;
    const raisedIn = (Date.now() - started) / 1000;
    await waitFor(
      async () =>
        (await handledOf(db, busy.id)).handled >= busyDebts && (await handledOf(db, quiet.id)).handled >= quietDebts,
      { what: 'every notification handled', timeoutMs: 60 * 60_000, intervalMs: 1_000 },
    );
    const workerCpuUs = cpuUsOf(worker.pid);
    const b = await handledOf(db, busy.id);
    const sendSeconds = (b.lastHandled!.getTime() - b.firstHandled!.getTime()) / 1000;
    const drainSeconds = (b.lastHandled!.getTime() - b.firstCreated!.getTime()) / 1000;
    const statuses = await db('debtor_notifications')
      .whereIn('organization_id', [busy.id, quiet.id])
      .groupBy('status')
      .select<{ status: string; count: string }[]>('status', db.raw('count(*) as count'));
    const latencies = (
      await db('debtor_notifications as n')
        .join('debts as d', 'd.id', 'n.debt_id')
        .where('n.organization_id', quiet.id)
        .select<{ ms: string }[]>(db.raw('extract(epoch from (n.handled_at - d.created_at)) * 1000 as ms'))
    ).map((r) => Number(r.ms));
    console.log(
      `  raised in ${raisedIn.toFixed(1)} s; the busy tenant's mail drained ${drainSeconds.toFixed(1)} s after its ` +
        `first debt; statuses: ${statuses.map((s) => `${s.status} ${s.count}`).join(', ')}`,
    );
    check(report, {
      scenario: 'mail',
      name: `debtor mails handed to the sink per second (${b.handled} in ${sendSeconds.toFixed(1)} s)`,
      value: b.handled / sendSeconds,
      unit: 'mails/s',
      bound: { atLeast: 50 },
    });
    check(report, {
      scenario: 'mail',
      name: `another tenant's portal mail, debt committed → mail accepted, p99 over ${latencies.length}`,
      value: percentile(latencies, 99),
      unit: 'ms',
      bound: { atMost: 30_000 },
    });
    observe(report, { scenario: 'mail', name: 'the same, p50', value: percentile(latencies, 50), unit: 'ms' });
    observe(report, {
      scenario: 'mail',
      name: 'the worker’s CPU per mail (user + system, recording and sending)',
      value: (workerCpuUs - workerCpuAtStart) / (busyDebts + quietDebts),
      unit: 'µs',
    });
    recordMemory(report, 'mail worker (notifications consumer and dispatcher)', worker.pid, peakMemoryMiB(worker.pid));
  } finally {
    await worker.stop();
    await sink.stop();
    // Their events and notifications go with them (cascade): no later relay finds them as a backlog.
    await db('organizations').whereIn('id', [busy.id, quiet.id]).delete();
    await db.destroy();
  }
}
