/**
 * The client: openapi-fetch over the types generated from docs/openapi.json (sdk/src/generated/openapi.ts), with the
 * base URL of the key's mode, the key, an `Idempotency-Key` on every POST and retries of 429 and 503.
 */
import { randomUUID } from 'node:crypto';
import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/openapi';

export type Mode = 'production' | 'sandbox';

/** The hosts, as the API's own defaults (PRODUCTION_BASE_URL, SANDBOX_BASE_URL); pass `baseUrl` for yours. */
export const DEFAULT_BASE_URLS: Record<Mode, string> = {
  production: 'http://localhost:3000',
  sandbox: 'http://localhost:3001',
};

export interface ClientOptions {
  /** `ak_live_…` (production) or `ak_test_…` (sandbox). */
  apiKey: string;
  /** Which host; by default the key's (`ak_test_` is the sandbox). */
  mode?: Mode;
  /** The host's base URL; by default `baseUrls[mode]`. */
  baseUrl?: string;
  baseUrls?: Partial<Record<Mode, string>>;
  /** How many times a 429 or 503 answer is retried (default 3); each waits `Retry-After` (capped by maxRetryWaitMs). */
  maxRetries?: number;
  /** The longest wait before a retry, in ms (default 60,000). */
  maxRetryWaitMs?: number;
  /** For tests and other runtimes; default the global fetch. */
  fetch?: typeof fetch;
}

export type ApiClient = Client<paths>;

/** The mode a key belongs to, from its prefix. */
export function modeOfKey(apiKey: string): Mode {
  return apiKey.startsWith('ak_test_') ? 'sandbox' : 'production';
}

export function baseUrlFor(options: Pick<ClientOptions, 'apiKey' | 'mode' | 'baseUrl' | 'baseUrls'>): string {
  if (options.baseUrl) return options.baseUrl.replace(/\/+$/, '');
  const mode = options.mode ?? modeOfKey(options.apiKey);
  return (options.baseUrls?.[mode] ?? DEFAULT_BASE_URLS[mode]).replace(/\/+$/, '');
}

const RETRIED = new Set([429, 503]);

/** Milliseconds to wait for a `Retry-After` (seconds or an HTTP date); `fallback` when absent or unreadable. */
export function retryAfterMs(header: string | null, fallback: number, now = Date.now()): number {
  if (header === null) return fallback;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? fallback : Math.max(0, at - now);
}

/** fetch that retries a 429 or 503 after its `Retry-After` (the request, its Idempotency-Key included, unchanged). */
export function retryingFetch(base: typeof fetch, maxRetries: number, maxWaitMs: number): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      if (!RETRIED.has(response.status) || attempt >= maxRetries) return response;
      const wait = Math.min(maxWaitMs, retryAfterMs(response.headers.get('retry-after'), 2 ** attempt * 500));
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
}

const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      request.headers.set('Idempotency-Key', randomUUID());
    }
    return request;
  },
};

export function createClient(options: ClientOptions): ApiClient {
  const client = createFetchClient<paths>({
    baseUrl: baseUrlFor(options),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options.fetch ?? fetch, options.maxRetries ?? 3, options.maxRetryWaitMs ?? 60_000),
  });
  client.use(idempotencyKeys);
  return client;
}
