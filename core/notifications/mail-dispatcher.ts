/**
 * Sends a mode's recorded debtor notifications (debtor-notifications.ts), fairly across organisations and several at
 * once (docs/operators/debtor-notifications.md, "Fairness and throughput").
 *
 * Fair: it claims due notifications in rounds, every organisation's oldest before any organisation's second
 * (claimDueNotifications), a few at a time, so a tenant that raised ten thousand debts takes one place per round and
 * another tenant's one new debt is mailed within the next claim, not behind the ten thousand. Fast: `sendsInFlight`
 * lanes each send one claimed notification at a time through the pooled transport (mail.ts: kept-open connections, the
 * relay's rate), and a lane that finds nothing claimed claims the next round for everyone.
 *
 * Exactly once in effect, as before: a claim is a row moved to `sending` by one dispatcher only, what is handled is
 * finished once, a refused send goes back to `pending` for a later try, and a claim left by a process that died
 * expires after CLAIM_EXPIRY_MS and is claimed again. Claims never wait long here: each claim takes at most one row per
 * lane.
 */
import type { Logger } from '../platform/logger';
import type { MailPoolOptions } from './mail';
import { claimDueNotifications, returnUnsentNotifications, type ClaimedNotificationRow } from './debtor-notifications';
import { deliverClaimed, type NotificationSenderDeps } from './notification-sender';

export interface MailDispatcherOptions extends NotificationSenderDeps {
  /** Notifications handled at once (each a few queries and one send); see mailSendsInFlight. */
  sendsInFlight: number;
  logger: Logger;
}

export interface MailDispatcher {
  /** Something may be due (new rows committed, or the sweep's periodic look): take it, unless a drain is running. */
  wake(): void;
  /** Resolves when the drain in progress (if any) has found nothing more to take. */
  idle(): Promise<void>;
  /** Takes nothing more, waits for the sends in flight, and hands back what it claimed but did not start. */
  stop(): Promise<void>;
}

/** A quarter second of a rate-limited relay's sends: what may be in flight ahead of a newly claimed notification. */
const RATE_LIMITED_IN_FLIGHT_SECONDS = 0.25;

/**
 * Sends in flight for the SMTP pool: two per connection, so each has its next message ready; with a relay's rate
 * (`maxMessagesPerSecond`), no more than a quarter second of it. Sends past the rate wait in nodemailer's pool, first
 * in, first out, so every one in flight is a message another tenant's newly claimed notification waits behind: at
 * 14 messages a second and 5 connections, 10 in flight and 10 more claimed would hold it ~1.4 s; 4 hold it ~0.6 s.
 */
export function mailSendsInFlight(pool: MailPoolOptions): number {
  const perConnections = 2 * pool.maxConnections;
  if (pool.maxMessagesPerSecond === 0) return perConnections;
  return Math.min(perConnections, Math.max(1, Math.ceil(pool.maxMessagesPerSecond * RATE_LIMITED_IN_FLIGHT_SECONDS)));
}

export function createMailDispatcher(options: MailDispatcherOptions): MailDispatcher {
  const { db, mode } = options;
  const lanes = Math.max(1, options.sendsInFlight);
  const log = options.logger.child({ component: 'mail-dispatcher', mode });
  const claimed: ClaimedNotificationRow[] = [];
  let draining: Promise<void> | undefined;
  let refilling: Promise<boolean> | undefined;
  let again = false;
  let stopped = false;

  /** One claim at a time for all lanes: true when it found something. */
  function refill(): Promise<boolean> {
    refilling ??= (async () => {
      try {
        const rows = await claimDueNotifications(db, mode, lanes);
        claimed.push(...rows);
        return rows.length > 0;
      } finally {
        refilling = undefined;
      }
    })();
    return refilling;
  }

  async function lane(): Promise<void> {
    while (!stopped) {
      const row = claimed.shift();
      if (!row) {
        if (!(await refill())) return;
        continue;
      }
      try {
        await deliverClaimed(options, row);
      } catch (err) {
        // The row stays claimed; it is taken again once its claim expires.
        log.warn({ err, notificationId: row.id }, 'debtor notification not handled; it is tried again later');
      }
    }
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      const results = await Promise.allSettled(Array.from({ length: lanes }, lane));
      for (const r of results) {
        if (r.status === 'rejected') log.warn({ err: r.reason }, 'mail dispatcher could not claim notifications');
      }
    } while (again && !stopped);
  }

  return {
    wake() {
      if (stopped) return;
      again = true;
      draining ??= drain().finally(() => {
        draining = undefined;
      });
    },
    async idle() {
      while (draining) await draining;
    },
    async stop() {
      stopped = true;
      await draining;
      const unsent = claimed.splice(0);
      if (unsent.length > 0)
        await returnUnsentNotifications(
          db,
          unsent.map((r) => r.id),
        );
    },
  };
}
