/**
 * A real mail sink for tests: maildev 3 started in this process on free loopback ports, read through its REST API
 * (`GET /api/email`), never a mock. Each test filters by recipient, so tests sharing one sink do not see each other's mail.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports';
import { waitFor } from './wait';

export interface ReceivedMail {
  id: string;
  subject: string;
  text: string;
  html?: string;
  from: { address: string; name: string }[];
  to: { address: string; name: string }[];
}

export interface MailSink {
  smtpUrl: string;
  webUrl: string;
  /** Every message received so far for `address`, oldest first. */
  mailTo(address: string): Promise<ReceivedMail[]>;
  /** Waits for the `count`-th message to `address` and returns it. */
  nthMailTo(address: string, count: number): Promise<ReceivedMail>;
  /** A header of the message as sent (maildev's parsed `headers` leave out the address headers), or null. */
  headerOf(mail: ReceivedMail, name: string): Promise<string | null>;
  /**
   * When the first message to `address` was stored (this process's clock, ms), or undefined: a latency's end that
   * needs no query over every message (the bench's sink holds tens of thousands).
   */
  firstArrivalTo(address: string): number | undefined;
  stop(): Promise<void>;
}

export type Mailbox = Pick<MailSink, 'webUrl' | 'mailTo' | 'nthMailTo' | 'headerOf'>;

/** The messages of a maildev already running (ours, or the production profile's relay), read through its web API. */
export function mailboxAt(webUrl: string): Mailbox {
  const mailTo = async (address: string) => {
    const res = await fetch(`${webUrl}/api/email`);
    const all = (await res.json()) as ReceivedMail[];
    return all.filter((m) => m.to.some((t) => t.address.toLowerCase() === address.toLowerCase()));
  };
  return {
    webUrl,
    mailTo,
    async headerOf(mail, name) {
      const source = await (await fetch(`${webUrl}/api/email/${mail.id}/source`)).text();
      const head = source.split(/\r?\n\r?\n/)[0] ?? '';
      const wanted = `${name.toLowerCase()}:`;
      const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(wanted));
      return line ? line.slice(wanted.length).trim() : null;
    },
    async nthMailTo(address, count) {
      let found: ReceivedMail | undefined;
      await waitFor(
        async () => {
          found = (await mailTo(address))[count - 1];
          return found !== undefined;
        },
        { what: `mail number ${count} to ${address}` },
      );
      return found as ReceivedMail;
    },
  };
}

export async function startMailSink(): Promise<MailSink> {
  const smtp = await freePort();
  const web = await freePort();
  // maildev 3 is ESM-only with an import-only export map: load it with import(), which nodenext keeps as is.
  const { MailDev } = await import('maildev');
  // Its own directory: maildev's default (/tmp/maildev) would be shared by every sink on the machine.
  const mailDirectory = await mkdtemp(path.join(tmpdir(), 'mail-sink-'));
  const maildev = new MailDev({ smtp, web, ip: '127.0.0.1', webIp: '127.0.0.1', silent: true, mailDirectory });
  const { smtp: smtpServer } = await maildev.start();
  const arrivals = new Map<string, number>();
  smtpServer.on('new', (mail: Pick<ReceivedMail, 'to'>) => {
    const at = Date.now();
    for (const { address } of mail.to)
      if (!arrivals.has(address.toLowerCase())) arrivals.set(address.toLowerCase(), at);
  });
  const webUrl = `http://127.0.0.1:${web}`;
  return {
    smtpUrl: `smtp://127.0.0.1:${smtp}`,
    ...mailboxAt(webUrl),
    firstArrivalTo: (address) => arrivals.get(address.toLowerCase()),
    async stop() {
      await maildev.stop();
      await rm(mailDirectory, { recursive: true, force: true });
    },
  };
}

let shared: Promise<MailSink> | undefined;

/**
 * This test process's default sink, started on first use and kept until the process exits: where the mail of any
 * process a test starts without a sink of its own goes (the root hook points `SMTP_URL` at it), never the
 * development stack's inbox.
 */
export function sharedMailSink(): Promise<MailSink> {
  shared ??= startMailSink();
  return shared;
}

/** Stops the shared sink, for a process that must end on its own once its work is done (the bench). */
export async function stopSharedMailSink(): Promise<void> {
  const sink = shared;
  shared = undefined;
  await (await sink)?.stop();
}
