/**
 * Verifying a webhook (/docs/webhooks, DECISIONS.md §4): `Service-Signature: t=<unix seconds>,v1=<hex>`, the hex the
 * lowercase HMAC-SHA256 of `<t>.<raw body>` keyed with the whole `whsec_…` secret (UTF-8). Compared in constant time;
 * a `t` more than 300 s from now is refused (a replay).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/openapi';
import type { EventType } from './events';

export const SIGNATURE_HEADER = 'Service-Signature';
export const DELIVERY_ID_HEADER = 'Service-Delivery-Id';
/** `live` for an event of the production API, `test` for one of the sandbox. */
export const MODE_HEADER = 'Service-Mode';
export const DEFAULT_TOLERANCE_SECONDS = 300;

type Schemas = components['schemas'];
/** Every delivered event, discriminated by `type`: `if (event.type === 'payment.received') event.data.payment`. */
export type WebhookEvent = {
  [K in keyof Schemas]: K extends `${string}Event`
    ? Schemas[K] extends { type: EventType }
      ? Schemas[K]
      : never
    : never;
}[keyof Schemas];

export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

export function computeSignature(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestampSeconds}.${rawBody}`, 'utf8')
    .digest('hex');
}

/** A `Service-Signature` value for `rawBody`, signed now (or at `at`), as the API (and `listen`) send it. */
export function signPayload(secret: string, rawBody: string, at: Date = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${computeSignature(secret, t, rawBody)}`;
}

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** The receiver's clock, for tests. */
  now?: Date;
}

/**
 * The event, once the signature is valid and fresh; otherwise throws WebhookSignatureError. Pass the raw body
 * exactly as received (before any JSON parsing) and the `Service-Signature` header.
 */
export function verifyWebhook(
  rawBody: string | Buffer,
  signature: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  if (!signature) throw new WebhookSignatureError(`no ${SIGNATURE_HEADER} header`);
  const parts = new Map<string, string[]>();
  for (const item of signature.split(',')) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    parts.set(key, [...(parts.get(key) ?? []), item.slice(at + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  const candidates = parts.get('v1') ?? [];
  if (!t || !/^\d+$/.test(t) || candidates.length === 0) throw new WebhookSignatureError('malformed signature header');
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(t)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookSignatureError('signature timestamp outside the tolerance');
  }
  const expected = Buffer.from(computeSignature(secret, Number(t), body), 'utf8');
  const matches = candidates.some((candidate) => {
    const given = Buffer.from(candidate, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookSignatureError('signature does not match');
  return JSON.parse(body) as WebhookEvent;
}
