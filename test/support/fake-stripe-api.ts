/**
 * A stand-in for Stripe's API (api.stripe.com), which cannot be reached from the test machines: a fake of an external
 * service we cannot run, not of a part of ours. It serves the two calls the Stripe adapter makes, create and
 * retrieve a PaymentIntent, honours the Idempotency-Key header as Stripe does (the same key answers the same
 * PaymentIntent), and records every request so a test checks what the `stripe` library sent: path, headers and the
 * form-encoded body. The `stripe` library is pointed at it by its `host`/`port`/`protocol` options.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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

export interface FakeStripeApi {
  endpoint: StripeEndpoint;
  requests: RecordedStripeRequest[];
  intents: Map<string, FakePaymentIntent>;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/** `port`: a fixed one, for a process started elsewhere that is told where Stripe is (the production profile). */
export async function startFakeStripeApi(options: { port?: number } = {}): Promise<FakeStripeApi> {
  const requests: RecordedStripeRequest[] = [];
  const intents = new Map<string, FakePaymentIntent>();
  const byIdempotencyKey = new Map<string, FakePaymentIntent>();
  let counter = 0;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const form = await readForm(req);
      const path = new URL(req.url ?? '/', 'http://stripe.invalid').pathname;
      requests.push({ method: req.method ?? '', path, headers: req.headers, form });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': `req_fake_${requests.length}` });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && path === '/v1/payment_intents') {
        const key = String(req.headers['idempotency-key'] ?? '');
        const existing = key ? byIdempotencyKey.get(key) : undefined;
        if (existing) return send(200, existing);
        const id = `pi_fake${++counter}${Date.now().toString(36)}`;
        const metadata = Object.fromEntries(
          Object.entries(form)
            .filter(([name]) => name.startsWith('metadata['))
            .map(([name, value]) => [name.slice('metadata['.length, -1), value]),
        );
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
