/**
 * Stripe's webhook ingest: `POST /processor/stripe/webhook` on the production host, mounted only
 * when PAYMENT_PROCESSOR=stripe. Not a client API route (no key, not in the OpenAPI document): Stripe calls it,
 * and the signature is its authentication. The raw body is read here, byte for byte, because the signature covers
 * exactly those bytes; `stripe.webhooks.constructEvent` verifies it with Stripe's default tolerance (5 minutes).
 * A bad or missing signature is `400` problem+json, so Stripe's dashboard shows the failure; a verified event is
 * answered `200` once core/payments/stripe-events.ts has done what it does (an unknown PaymentIntent included: it is
 * logged and ignored). The debt's workflow not answering is `503`, and Stripe resends the event later.
 * Logged: the event's id and type, the attempt and the outcome. Never the body, the signature, or a secret.
 */
import type { Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { DebtTriggers } from '../../core/lifecycle/triggers';
import type { Db } from '../../core/platform/db';
import { ApiError } from '../../core/platform/errors';
import type { Logger } from '../../core/platform/logger';
import type { RedactedSecret } from '../../core/platform/payment-config';
import type { Stripe } from '../../core/payments/stripe-client';
import type { Refunder } from '../../core/payments/refunds';
import { ingestStripeEvent } from '../../core/payments/stripe-events';
import { MAX_BODY_BYTES } from '../http/middleware/json-body';
import type { ApiState } from '../http/route-definition';

export const STRIPE_WEBHOOK_PATH = '/processor/stripe/webhook';

export interface StripeWebhookDeps {
  db: Db;
  triggers: DebtTriggers;
  logger: Logger;
  /** Used offline only, for `webhooks.constructEvent`. */
  stripe: Stripe;
  webhookSecret: RedactedSecret;
  /** Refunds a payment the debt refused, through Stripe's Refunds API (core/payments/stripe-refunder.ts). */
  refunder: Refunder;
}

export function stripeWebhookIngest(deps: StripeWebhookDeps): Middleware<ApiState> {
  return async (ctx, next) => {
    if (ctx.path !== STRIPE_WEBHOOK_PATH) {
      await next();
      return;
    }
    if (ctx.method !== 'POST') {
      throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; use POST.`, {
        headers: { Allow: 'POST' },
      });
    }
    const requestId = ctx.state.requestId;
    const raw = await readRawBody(ctx.req);
    let event: Stripe.Event;
    try {
      event = deps.stripe.webhooks.constructEvent(raw, ctx.get('Stripe-Signature'), deps.webhookSecret.reveal());
    } catch (err) {
      deps.logger.warn(
        { requestId, reason: (err as { type?: string }).type ?? 'unparsable' },
        'stripe webhook refused: its signature does not verify',
      );
      throw new ApiError(
        'invalid_request',
        'The Stripe-Signature header is missing or does not verify against this endpoint’s signing secret.',
      );
    }
    const result = await ingestStripeEvent(deps, event);
    const log = { requestId, eventId: event.id, eventType: event.type, ...result };
    if (result.outcome === 'ignored' && result.reason !== 'event_type' && result.reason !== 'still_processing') {
      deps.logger.warn(log, 'stripe event ignored');
    } else if (result.outcome === 'settled' && result.refusedWith) {
      deps.logger.warn(log, 'stripe payment settled but refused by the debt: recorded on the attempt for operators');
    } else {
      deps.logger.info(log, 'stripe event ingested');
    }
    ctx.status = 200;
    ctx.body = { received: true, outcome: result.outcome };
  };
}

/** The body's exact bytes, at most 1 MiB (else 413, as every body of this service). */
async function readRawBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > MAX_BODY_BYTES) throw new ApiError('payload_too_large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError('payload_too_large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
