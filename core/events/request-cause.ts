/**
 * Which API request a transaction works for, so the events it records (and their deliveries) carry the request's id
 * (`X-Request-Id`) without every core function taking one more parameter.
 *
 * Why a mark on the transaction rather than an AsyncLocalStorage request context or an explicit argument: the API's
 * executor is the only place a request's transactions are opened (the transaction and its idempotency savepoint),
 * so marking them there reaches every `recordEvent` of the request with no change to routes or domain functions;
 * an explicit argument would thread through every one of them; and AsyncLocalStorage on Node 20 enables async hooks
 * for the whole process, a cost on every await of every request. The mark is typed, held weakly (it goes with the
 * transaction), and a transaction nobody marked (a worker's, a test's) records events without a request id.
 */
import { randomUUID } from 'node:crypto';
import type { Trx } from '../platform/db';

/** A request's id: always ours (a client-supplied one could collide), so it is unique. */
export const newRequestId = (): string => `req_${randomUUID().replace(/-/g, '')}`;

const REQUEST_ID_FORM = /^req_[0-9a-f]{32}$/;

/** Whether `value` has the form of our request ids (`X-Request-Id`). */
export function isRequestId(value: string): boolean {
  return REQUEST_ID_FORM.test(value);
}

/**
 * The request behind a lifecycle change, from the id of the Temporal update that asked for it: the API's triggers
 * use the request id as the update id (core/lifecycle/triggers.ts); other updates have ids of another form.
 */
export function requestIdOfUpdate(updateId: string | undefined): string | null {
  return updateId && isRequestId(updateId) ? updateId : null;
}

const requestIds = new WeakMap<Trx, string>();

/** Marks `trx` (and returns it) as working for the API request `requestId`. */
export function forRequest(trx: Trx, requestId: string): Trx {
  requestIds.set(trx, requestId);
  return trx;
}

/** The API request `trx` works for, or null when it works for none. */
export function requestIdOf(trx: Trx): string | null {
  return requestIds.get(trx) ?? null;
}
