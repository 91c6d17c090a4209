/**
 * Bulk work: the events a placement's import records (and what follows from them: their deliveries, their debts'
 * lifecycle starts and portal mails) are marked `bulk`, and each organisation's owed work is taken non-bulk first
 * (docs/placements.md, "Fair to everyone else"). A debt a tenant raises through the API while its own placement's
 * thousands are still owed is started, delivered and mailed within a turn, not after them.
 *
 * A mark on the transaction, as request-cause.ts marks a request's: the import opens its transactions in one place,
 * and every event recorded in them is bulk without `createDebt` and the event statements taking one more parameter.
 */
import type { Trx } from '../platform/db';

const bulkTransactions = new WeakSet<Trx>();

/** Marks `trx` (and returns it) as doing bulk work: the events it records are taken after the organisation's others. */
export function asBulkWork(trx: Trx): Trx {
  bulkTransactions.add(trx);
  return trx;
}

/** Whether `trx` does bulk work (a placement's import). */
export function isBulkWork(trx: Trx): boolean {
  return bulkTransactions.has(trx);
}
