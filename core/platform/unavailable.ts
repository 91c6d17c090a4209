/**
 * Recognises errors that mean "a dependency is not answering" (PostgreSQL down or restarting, a connection cut, the
 * pool unable to connect, Redis timing out), as opposed to bugs: the problem renderer answers those with
 * `503 service_unavailable`, which tells clients to retry, instead of `500 internal_error`.
 */

/** Socket-level failures from Node's net layer, whichever client raised them. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
]);

/**
 * SQLSTATEs: class 08 (connection exception), 57P01-57P04 (admin shutdown, crash shutdown, cannot connect now, database
 * dropped: a server stopping or still starting), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-4]|53300)$/;

/** Messages of node-postgres, knex's pool and ioredis that carry no code. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // node-postgres: the server closed the connection
  /^Connection ended unexpectedly/,
  /not queryable/, // node-postgres: a client that already had a connection error
  /^Knex: Timeout acquiring a connection/,
  /^Command timed out$/, // ioredis commandTimeout
  /^Connection is closed\.$/, // ioredis
  /enableOfflineQueue options is false/, // ioredis while disconnected
];

export function isDependencyUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const { code, name, message, errors } = err as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    errors?: unknown;
  };
  if (name === 'KnexTimeoutError') return true; // no pool connection within acquireConnectionTimeout
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Node's happy-eyeballs connect reports an AggregateError of the attempts.
  return Array.isArray(errors) && errors.some((inner) => isDependencyUnavailable(inner, depth + 1));
}
