/**
 * Whether an error means PostgreSQL could not be reached or dropped the connection (as opposed to a query that
 * failed): such a request is answered `503 service_unavailable`, retryable, rather than a `500`.
 */

/** SQLSTATE classes 08 (connection exception) and 57P0x (the server is shutting down or starting). */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-4])$/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, name, message } = err as { code?: unknown; name?: unknown; message?: unknown };
  if (name === 'KnexTimeoutError') return true; // no pool connection within acquireConnectionTimeout
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true;
  return typeof message === 'string' && /^Connection terminated/.test(message);
}
