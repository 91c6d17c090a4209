/**
 * A stand-in for Stripe's API (api.stripe.com), which cannot be reached from the test machines: a fake of an external
 * service we cannot run, not of a part of ours. It serves the calls the Stripe adapter makes (create and retrieve a
 * PaymentIntent, create a refund), honours the Idempotency-Key header as Stripe does (the same key answers the same
 * object), and records every request so a test checks what the `stripe` library sent: path, headers and the
 * form-encoded body. The `stripe` library is pointed at it by its `host`/`port`/`protocol` options.
 *
 * It answers amounts as Stripe does (https://docs.stripe.com/currencies), with its own copy of Stripe's rules, kept
 * apart from core/payments/stripe-currencies.ts on purpose: a three-decimal amount not ending in 0, an ISK amount not
 * divisible by 100, or a currency Stripe does not take is a 400 `invalid_request_error`, as Stripe answers it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { STRIPE_WEBHOOK_PATH } from '../../api/routes/stripe-webhook';
import type { StripeEndpoint } from '../../core/payments/stripe-client';

export interface RecordedStripeRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The form-encoded body, decoded: `metadata[debtId]`, `allowed_payment_method_types[0]`, … */
  form: Record<string, string>;
}

export interface FakePaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  livemode: false;
}

export interface FakeRefund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  status: 'succeeded';
  metadata: Record<string, string>;
}

export interface FakeStripeApi {
  endpoint: StripeEndpoint;
  requests: RecordedStripeRequest[];
  intents: Map<string, FakePaymentIntent>;
  /** Every refund created, by id. */
  refunds: Map<string, FakeRefund>;
  /** Answer the next `count` refund requests with a 500 (Stripe not answering), e.g. to test a retried refund. */
  failRefunds(count: number): void;
  close(): Promise<void>;
}

/** Stripe's currency rules, as its API enforces them on a PaymentIntent's or a refund's `amount`. */
const STRIPE_CURRENCIES = (
  'aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd bwp byn bzd cad cdf chf clp ' +
  'cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip gmd gnf gtq gyd hkd hnl htg huf idr ils inr ' +
  'isk jmd jod jpy kes kgs khr kmf krw kwd kyd kzt lak lbp lkr lrd lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn ' +
  'myr mzn nad ngn nio nok npr nzd omr pab pen pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sek sgd shp sle ' +
  'sos srd szl thb tjs tnd top try ttd twd tzs uah ugx usd uyu uzs vnd vuv wst xaf xcd xcg xof xpf yer zar zmw'
).split(' ');
const STRIPE_THREE_DECIMAL = ['bhd', 'jod', 'kwd', 'omr', 'tnd'];

/** Stripe's 400 for an amount or currency it does not take, or null. */
function amountError(amount: number, currency: string): { code: string; message: string; param: string } | null {
  if (!STRIPE_CURRENCIES.includes(currency)) {
    return { code: 'parameter_invalid', param: 'currency', message: `Invalid currency: ${currency}.` };
  }
  if (!Number.isSafeInteger(amount) || amount < 1) {
    return { code: 'parameter_invalid_integer', param: 'amount', message: 'Invalid positive integer' };
  }
  if (STRIPE_THREE_DECIMAL.includes(currency) && amount % 10 !== 0) {
    return {
      code: 'invalid_charge_amount',
      param: 'amount',
      message: `Invalid amount. Amounts in ${currency.toUpperCase()} must end in 0 (rounded to the nearest ten).`,
    };
  }
  if (currency === 'isk' && amount % 100 !== 0) {
    return {
      code: 'invalid_charge_amount_no_decimal_compatible',
      param: 'amount',
      message:
        'Invalid amount. Currency ISK has become effectively zero-decimal and charged amounts must be evenly ' +
        'divisible by 100.',
    };
  }
  return null;
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

function metadataOf(form: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(form)
      .filter(([name]) => name.startsWith('metadata['))
      .map(([name, value]) => [name.slice('metadata['.length, -1), value]),
  );
}

/** `port`: a fixed one, for a process started elsewhere that is told where Stripe is (the production profile). */
export async function startFakeStripeApi(options: { port?: number } = {}): Promise<FakeStripeApi> {
  const requests: RecordedStripeRequest[] = [];
  const intents = new Map<string, FakePaymentIntent>();
  const byIdempotencyKey = new Map<string, FakePaymentIntent | FakeRefund>();
  const refunds = new Map<string, FakeRefund>();
  let refundFailures = 0;
  let counter = 0;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const form = await readForm(req);
      const url = new URL(req.url ?? '/', 'http://stripe.invalid');
      const path = url.pathname;
      requests.push({ method: req.method ?? '', path, headers: req.headers, form });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': `req_fake_${requests.length}` });
        res.end(JSON.stringify(body));
      };
      const invalid = (error: { code: string; message: string; param: string }) =>
        send(400, { error: { type: 'invalid_request_error', ...error } });
      const key = String(req.headers['idempotency-key'] ?? '');
      if (req.method === 'POST' && path === '/v1/refunds') {
        if (refundFailures > 0) {
          refundFailures -= 1;
          return send(500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
        }
        const existing = key ? byIdempotencyKey.get(key) : undefined;
        if (existing) return send(200, existing);
        const intent = intents.get(form.payment_intent ?? '');
        if (!intent)
          return invalid({ code: 'resource_missing', param: 'payment_intent', message: 'No such payment_intent' });
        if (intent.status !== 'succeeded') {
          return invalid({ code: 'charge_not_succeeded', param: 'payment_intent', message: 'Not succeeded' });
        }
        const already = [...refunds.values()].filter((r) => r.payment_intent === intent.id);
        const refunded = already.reduce((sum, r) => sum + r.amount, 0);
        const amount = form.amount === undefined ? intent.amount - refunded : Number(form.amount);
        if (refunded + amount > intent.amount) {
          return invalid({ code: 'charge_already_refunded', param: 'amount', message: 'Already refunded' });
        }
        const error = amountError(amount, intent.currency);
        if (error) return invalid(error);
        const refund: FakeRefund = {
          id: `re_fake${++counter}${Date.now().toString(36)}`,
          object: 'refund',
          amount,
          currency: intent.currency,
          payment_intent: intent.id,
          status: 'succeeded',
          metadata: metadataOf(form),
        };
        refunds.set(refund.id, refund);
        if (key) byIdempotencyKey.set(key, refund);
        return send(200, refund);
      }
      if (req.method === 'GET' && path === '/v1/refunds') {
        const intent = url.searchParams.get('payment_intent');
        const data = [...refunds.values()].filter((r) => r.payment_intent === intent).reverse();
        return send(200, { object: 'list', url: '/v1/refunds', has_more: false, data });
      }
      if (req.method === 'POST' && path === '/v1/payment_intents') {
        const existing = key ? byIdempotencyKey.get(key) : undefined;
        if (existing) return send(200, existing);
        const error = amountError(Number(form.amount), form.currency ?? '');
        if (error) return invalid(error);
        const id = `pi_fake${++counter}${Date.now().toString(36)}`;
        const metadata = metadataOf(form);
        const intent: FakePaymentIntent = {
          id,
          object: 'payment_intent',
          amount: Number(form.amount),
          currency: form.currency ?? '',
          status: 'requires_payment_method',
          client_secret: `${id}_secret_fake`,
          metadata,
          livemode: false,
        };
        intents.set(id, intent);
        if (key) byIdempotencyKey.set(key, intent);
        return send(200, intent);
      }
      // Stripe cancels a PaymentIntent that no charge is under way for, and refuses one that succeeded or is processing.
      const cancel = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)\/cancel$/.exec(path);
      const cancelled = cancel && req.method === 'POST' ? intents.get(cancel[1]!) : undefined;
      if (cancelled) {
        if (cancelled.status === 'succeeded' || cancelled.status === 'processing' || cancelled.status === 'canceled') {
          return send(400, {
            error: {
              type: 'invalid_request_error',
              code: 'payment_intent_unexpected_state',
              message: `You cannot cancel this PaymentIntent because it has a status of ${cancelled.status}.`,
            },
          });
        }
        cancelled.status = 'canceled';
        return send(200, { ...cancelled, cancellation_reason: form.cancellation_reason ?? null });
      }
      const retrieve = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)$/.exec(path);
      if (req.method === 'GET' && retrieve) {
        const intent = intents.get(retrieve[1]!);
        if (intent) return send(200, intent);
      }
      send(404, { error: { type: 'invalid_request_error', message: `No such route or object: ${path}` } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: { host: '127.0.0.1', port, protocol: 'http' },
    requests,
    intents,
    refunds,
    failRefunds: (count) => {
      refundFailures = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Stripe event about `object`, as Stripe's webhook sends it (the JSON body). */
export function stripeEvent(type: string, object: object): string {
  return JSON.stringify({
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });
}

interface FetchAnswer {
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}
type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string },
) => Promise<FetchAnswer>;

/** Plays Stripe: POSTs a signed event to the host's webhook ingest (`fetchImpl`: e.g. one trusting a local CA). */
export async function postStripeEvent(
  baseUrl: string,
  payload: string,
  signature: string,
  fetchImpl: FetchLike = fetch,
): Promise<{ status: number; type: string | null; body: Record<string, unknown> }> {
  const res = await fetchImpl(`${baseUrl}${STRIPE_WEBHOOK_PATH}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Stripe-Signature': signature },
    body: payload,
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: (await res.json()) as Record<string, unknown>,
  };
}
