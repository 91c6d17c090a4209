/**
 * Webhook signatures (spec §6, DECISIONS §4): `Service-Signature: t=<unix seconds>,v1=<hex>` where the hex is the
 * lowercase HMAC-SHA256 of `<t>.<raw body>`, keyed with the whole secret string (`whsec_` included, UTF-8), as
 * Stripe-compatible receivers expect. Computed at send time, on every attempt.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'Service-Signature';
export const DELIVERY_ID_HEADER = 'Service-Delivery-Id';
/**
 * `live` (production) or `test` (sandbox), as the keys' prefixes say it. A header, not an envelope
 * field: DECISIONS.md §4 fixes the envelope at `{id, type, createdAt, data}`.
 */
export const MODE_HEADER = 'Service-Mode';

export function modeHeaderValue(mode: 'production' | 'sandbox'): 'live' | 'test' {
  return mode === 'production' ? 'live' : 'test';
}

export function computeSignature(secret: string, timestampSeconds: number, rawBody: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestampSeconds}.${rawBody}`, 'utf8')
    .digest('hex');
}

/** The `Service-Signature` header value for `rawBody`, signed now (or at `at`). */
export function signatureHeader(secret: string, rawBody: string, at: Date = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${computeSignature(secret, t, rawBody)}`;
}
