/**
 * Outgoing mail: the one module that sends it (ARCHITECTURE.md), over SMTP with nodemailer. Every message has a
 * plain-text part and the configured `From`; an HTML part is optional. The transport is built by the caller's
 * entry point from `SMTP_URL`, never at import time.
 */
import nodemailer from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared';

/**
 * How long a relay may take, each step (milliseconds). nodemailer's own socket timeout is an hour: a relay that went
 * quiet mid-send would outlive a debtor notification's claim (CLAIM_EXPIRY_MS, 5 minutes), and a second sender would
 * mail it again. Each limit is a pause of the relay, not the whole send; together they stay well inside the claim.
 */
export const SMTP_TIMEOUTS_MS = { dns: 10_000, connection: 10_000, greeting: 10_000, socket: 30_000 } as const;

export interface MailMessage {
  to: string;
  subject: string;
  /** The plain-text part; every message has one. */
  text: string;
  html?: string;
  /** Where a reply goes when it should not go to `From` (a debtor's reply reaches the creditor's support address). */
  replyTo?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  /** `smtp://host:port` (or `smtps://…`, with credentials in the URL if the relay wants them). */
  smtpUrl: string;
  /** The `From` header, e.g. `Client console <console@example.com>`. */
  from: string;
  /**
   * Keep connections open and share them (debtor mail in bulk): nodemailer's pool, at most `maxConnections` to the
   * relay, and at most `maxMessagesPerSecond` across them (0: no limit), which nodemailer enforces by holding the
   * messages past the limit until the second is over. Without it each message opens its own connection.
   */
  pool?: MailPoolOptions;
}

export interface MailPoolOptions {
  maxConnections: number;
  maxMessagesPerSecond: number;
}

export function createMailer(options: MailerOptions): Mailer {
  const transport = nodemailer.createTransport({
    ...parseConnectionUrl(options.smtpUrl),
    dnsTimeout: SMTP_TIMEOUTS_MS.dns,
    connectionTimeout: SMTP_TIMEOUTS_MS.connection,
    greetingTimeout: SMTP_TIMEOUTS_MS.greeting,
    socketTimeout: SMTP_TIMEOUTS_MS.socket,
    ...(options.pool
      ? {
          pool: true,
          maxConnections: options.pool.maxConnections,
          // The relay's rate, per second; nodemailer's default (no limit) when 0.
          ...(options.pool.maxMessagesPerSecond > 0
            ? { rateDelta: 1000, rateLimit: options.pool.maxMessagesPerSecond }
            : {}),
        }
      : {}),
  });
  return {
    async send(message) {
      await transport.sendMail({ from: options.from, ...message });
    },
    close() {
      transport.close();
    },
  };
}
