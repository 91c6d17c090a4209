/**
 * Sends one signed webhook POST (DECISIONS §4): 10-second budget for connect, answer and excerpt, no redirects
 * (undici never follows them; a 3xx is a failure like any non-2xx), and the SSRF policy enforced on the address
 * actually connected to: literal IPs are checked here, names by the agent's guarded DNS lookup on every new
 * connection. Allow-listed hosts (development and tests) go through an unguarded agent.
 */
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { RESPONSE_EXCERPT_BYTES } from './deliveries';
import {
  guardedLookup,
  isAllowListed,
  isPublicAddress,
  parseWebhookUrl,
  UnsafeUrlError,
  type UrlPolicy,
} from './ssrf-guard';

export const ATTEMPT_TIMEOUT_MS = 10_000;
const USER_AGENT = 'ClientPublicAPI-Webhooks/1.0';

export interface SendOutcome {
  succeeded: boolean;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

export interface WebhookHttp {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome>;
  close(): Promise<void>;
}

export function createWebhookHttp(policy: UrlPolicy): WebhookHttp {
  const common = { headersTimeout: ATTEMPT_TIMEOUT_MS, bodyTimeout: ATTEMPT_TIMEOUT_MS, keepAliveTimeout: 10_000 };
  const guarded = new Agent({ ...common, connect: { timeout: ATTEMPT_TIMEOUT_MS, lookup: guardedLookup } });
  const allowListed = new Agent({ ...common, connect: { timeout: ATTEMPT_TIMEOUT_MS } });

  function agentFor(url: URL): Agent {
    if (isAllowListed(url.hostname, policy)) return allowListed;
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // The lookup hook never sees literal addresses, so they are judged here.
    if (isIP(host) && !isPublicAddress(host)) throw new UnsafeUrlError(`${host} is not a public address`);
    return guarded;
  }

  return {
    async send(url, body, headers) {
      const started = process.hrtime.bigint();
      const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
      try {
        const target = parseWebhookUrl(url, policy);
        const response = await request(target, {
          method: 'POST',
          dispatcher: agentFor(target),
          headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
          body,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        const responseBody = await readExcerpt(response.body);
        const succeeded = response.statusCode >= 200 && response.statusCode < 300;
        const error = succeeded ? null : `HTTP ${response.statusCode}`;
        return { succeeded, httpStatus: response.statusCode, latencyMs: elapsed(), error, responseBody };
      } catch (err) {
        return {
          succeeded: false,
          httpStatus: null,
          latencyMs: elapsed(),
          error: describeError(err),
          responseBody: null,
        };
      }
    },
    async close() {
      await Promise.allSettled([guarded.close(), allowListed.close()]);
    },
  };
}

/** The first 1 KiB of the answer, as text; NUL bytes dropped (PostgreSQL text cannot hold them). */
async function readExcerpt(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_EXCERPT_BYTES) break; // leaving the loop discards the rest of the answer
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replaceAll('\0', '');
}

/** A short, secret-free description for the delivery log. */
function describeError(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (err instanceof UnsafeUrlError || e.code === 'ERR_WEBHOOK_ADDRESS_BLOCKED') {
    return `blocked: ${e.message ?? 'non-public address'}`;
  }
  if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return `timeout: no complete answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  }
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return `timeout: could not connect within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  if (e.cause && e.cause !== err) return describeError(e.cause);
  return `network error: ${e.code ?? e.message ?? String(err)}`;
}
