/**
 * Outgoing mail: the one module that sends it (ARCHITECTURE.md), over SMTP with nodemailer. Every message has a
 * plain-text part and the configured `From`; an HTML part is optional. The transport is built by the caller's
 * entry point from `SMTP_URL`, never at import time.
 */
import nodemailer from 'nodemailer';

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
}

export function createMailer(options: MailerOptions): Mailer {
  const transport = nodemailer.createTransport(options.smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from: options.from, ...message });
    },
    close() {
      transport.close();
    },
  };
}
