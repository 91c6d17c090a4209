/**
 * A webhook receiver for tests, written from the spec alone (§6 "Signature", §8 tolerance), not from our signing
 * code: it parses `Service-Signature`, recomputes the HMAC-SHA256 of `<t>.<raw body>` with the secret, compares in
 * constant time and rejects timestamps more than 300 seconds from its clock. Plus a real HTTP (or https) server on
 * 127.0.0.1 that records every request and answers as the test says.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export const TOLERANCE_SECONDS = 300;

export type Verification = { ok: true; timestamp: number } | { ok: false; reason: string };

export function verifySignature(
  header: string | undefined,
  rawBody: string,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Verification {
  if (!header) return { ok: false, reason: 'missing header' };
  const parts = header.split(',').map((part) => part.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!t || !/^\d+$/.test(t) || signatures.length === 0) return { ok: false, reason: 'malformed header' };
  const timestamp = Number(t);
  if (Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) return { ok: false, reason: 'timestamp out of tolerance' };
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex'), 'utf8');
  const matches = signatures.some((sig) => {
    const given = Buffer.from(sig, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'signature mismatch' };
}

export interface ReceivedRequest {
  /** 1-based order of arrival. */
  index: number;
  receivedAt: number;
  deliveryId: string | undefined;
  signature: string | undefined;
  rawBody: string;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  headers: IncomingMessage['headers'];
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export type Responder = (request: ReceivedRequest) => Reply | Promise<Reply>;

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  respondWith(responder: Responder): void;
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Over plain HTTP on 127.0.0.1, or over https with `tls` (a certificate for 127.0.0.1: the production profile's). */
export async function startWebhookReceiver(
  path = '/hooks',
  options: { tls?: { key: string; cert: string } } = {},
): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: (() => void)[] = [];
  let responder: Responder = () => ({ status: 200, body: 'ok' });
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const rawBody = await readBody(req);
      const received: ReceivedRequest = {
        index: requests.length + 1,
        receivedAt: Date.now(),
        deliveryId: req.headers['service-delivery-id'] as string | undefined,
        signature: req.headers['service-signature'] as string | undefined,
        rawBody,
        body: JSON.parse(rawBody) as ReceivedRequest['body'],
        headers: req.headers,
      };
      requests.push(received);
      waiters.forEach((wake) => wake());
      const reply = await responder(received);
      if (res.destroyed) return;
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
    })().catch(() => res.destroy());
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handler) : createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}${path}`,
    requests,
    respondWith: (next) => (responder = next),
    waitForRequests: (count, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          resolve(requests.slice());
        };
        waiters.push(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
