/**
 * The configuration-time check of a receiver URL, bounded: DNS is asked at most `maxPerOrganization` times at once
 * per organisation, and an answer that does not come within `timeoutMs` is a refusal. The caller runs it before
 * any transaction, so a resolver that never answers holds no database connection.
 *
 * A slot is given back when the lookup itself settles, not at the timeout: `dns.lookup` runs on libuv's small
 * thread pool, and a tenant must not be able to fill it with lookups that time out one after the other.
 */
import { ApiError } from '../platform/errors';
import { assertPublicWebhookUrl, UnsafeUrlError, type ResolveHost, type UrlPolicy } from './ssrf-guard';

export const DEFAULT_RESOLVE_TIMEOUT_MS = 3_000;
export const DEFAULT_RESOLUTIONS_PER_ORGANIZATION = 2;

/** The organisation already has `maxPerOrganization` lookups in flight. */
export class TooManyResolutionsError extends Error {
  constructor(limit: number) {
    super(`Too many webhook URL resolutions in progress for this organisation (at most ${limit}); retry shortly.`);
    this.name = 'TooManyResolutionsError';
  }
}

export type CheckWebhookUrl = (organizationId: string, url: string) => Promise<URL>;

export function createWebhookUrlCheck(options: {
  policy: UrlPolicy;
  resolveHost: ResolveHost;
  timeoutMs?: number;
  maxPerOrganization?: number;
}): CheckWebhookUrl {
  const timeoutMs = options.timeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS;
  const limit = options.maxPerOrganization ?? DEFAULT_RESOLUTIONS_PER_ORGANIZATION;
  const inFlight = new Map<string, number>();

  function release(organizationId: string): void {
    const left = (inFlight.get(organizationId) ?? 1) - 1;
    if (left > 0) inFlight.set(organizationId, left);
    else inFlight.delete(organizationId);
  }

  return async (organizationId, url) => {
    const resolveHost: ResolveHost = (host) => {
      const taken = inFlight.get(organizationId) ?? 0;
      if (taken >= limit) return Promise.reject(new TooManyResolutionsError(limit));
      inFlight.set(organizationId, taken + 1);
      const lookup = options.resolveHost(host);
      lookup.then(
        () => release(organizationId),
        () => release(organizationId),
      );
      return withTimeout(lookup, timeoutMs);
    };
    return assertPublicWebhookUrl(url, options.policy, resolveHost);
  };
}

/**
 * `check` with its refusals as the problems PUT /v1/webhooks answers (and the console shows): an unsafe URL is
 * `invalid_url` naming `body.url`, too many lookups at once `rate_limited` with `Retry-After: 1`. Returns the URL.
 */
export async function checkReceiverUrl(check: CheckWebhookUrl, organizationId: string, url: string): Promise<string> {
  try {
    await check(organizationId, url);
    return url;
  } catch (err) {
    if (err instanceof TooManyResolutionsError) {
      throw new ApiError('rate_limited', err.message, { headers: { 'Retry-After': '1' } });
    }
    if (!(err instanceof UnsafeUrlError)) throw err;
    throw new ApiError('invalid_url', err.message, { errors: [{ path: 'body.url', message: err.message }] });
  }
}

function withTimeout(lookup: Promise<string[]>, timeoutMs: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new UnsafeUrlError(`The URL’s host could not be resolved in time (${timeoutMs / 1000} s).`)),
      timeoutMs,
    );
  });
  return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer));
}
