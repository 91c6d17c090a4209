/**
 * Money (DECISIONS.md §2): exact decimals, never binary floats. Inside the service an amount is a canonical decimal
 * string ("1250.5"), stored as NUMERIC and combined with decimal.js. On the wire it is a JSON number.
 *
 * Amounts are capped at 15 significant digits (e.g. 9,999,999,999,999.99 AUD). Every decimal of at most 15
 * significant digits survives the trip through a binary double and back unchanged (DBL_DIG = 15), so a JSON
 * number read by JSON.parse and one written by JSON.stringify both carry exactly the decimal we meant.
 */
import Decimal from 'decimal.js';
import { CURRENCY_MINOR_UNITS, DEFAULT_CURRENCY, minorUnits } from './currencies';
import { ApiError, errors } from '../platform/errors';

// Far more precision than any sum of 15-digit amounts needs, so arithmetic here never rounds.
const Exact = Decimal.clone({ precision: 50, toExpNeg: -50, toExpPos: 50 });

export const MAX_SIGNIFICANT_DIGITS = 15;

/** A plain decimal, optionally signed, optionally with an exponent: the JSON number grammar, leading zeros allowed. */
const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Validates an ISO 4217 code (defaulting to AUD); an unknown one is `invalid_request` naming the field. */
export function parseCurrency(value: unknown, path = 'body.currency'): string {
  if (value === undefined) return DEFAULT_CURRENCY;
  if (typeof value === 'string' && CURRENCY_MINOR_UNITS.has(value)) return value;
  throw errors.invalidRequest(`${JSON.stringify(value)} is not a supported ISO 4217 currency code.`, [
    { path, message: 'is not a supported ISO 4217 currency code' },
  ]);
}

/** An amount read from a request: its canonical decimal string, or what is wrong with it. */
type AmountReading = { amount: string } | { problem: string };

/** Reads a JSON number, the source text of one, or a decimal string, as a positive amount in the currency. */
function readAmount(value: unknown, currency: string): AmountReading {
  if (value === undefined || value === null) return { problem: 'is required' };
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || text.length > 64 || !DECIMAL_TEXT.test(text)) {
    return { problem: 'must be a decimal number, e.g. 1250.50' };
  }
  const amount = new Exact(text);
  if (!amount.isFinite() || amount.lte(0)) return { problem: 'must be greater than zero' };
  const units = minorUnits(currency);
  if (amount.decimalPlaces() > units) return { problem: `must have at most ${units} decimal places in ${currency}` };
  if (amount.precision(true) > MAX_SIGNIFICANT_DIGITS) {
    return { problem: `must have at most ${MAX_SIGNIFICANT_DIGITS} significant digits` };
  }
  return { amount: amount.toFixed() };
}

/** An amount field of a request body (e.g. a transaction's `amount`); a bad one is `invalid_request` naming it. */
export function parseAmount(value: unknown, currency: string, field: string): string {
  const reading = readAmount(value, currency);
  if ('amount' in reading) return reading.amount;
  throw errors.invalidRequest(`${field} ${reading.problem}.`, [{ path: `body.${field}`, message: reading.problem }]);
}

/** A debt's `originalPrincipal`: the spec gives a bad principal its own code, `invalid_principal`. */
export function parsePrincipal(value: unknown, currency: string): string {
  const reading = readAmount(value, currency);
  if ('amount' in reading) return reading.amount;
  const { problem } = reading;
  throw new ApiError('invalid_principal', `originalPrincipal ${problem}.`, {
    errors: [{ path: 'body.originalPrincipal', message: problem }],
  });
}

/** Canonical form of a stored amount: NUMERIC comes back padded ("1250.5000"). */
export function normalizeAmount(amount: string): string {
  return new Exact(amount).toFixed();
}

/** The wire form: a JS number that JSON.stringify writes with no more fractional digits than the currency has. */
export function toMoneyNumber(amount: string, currency: string): number {
  const units = minorUnits(currency);
  // Fast path for stored amounts, which already fit the currency (NUMERIC only pads them: "1250.5000").
  const fraction = amount.split('.')[1] ?? '';
  if (fraction.replace(/0+$/, '').length <= units) return Number(amount);
  return Number(new Exact(amount).toDecimalPlaces(units).toFixed());
}

export function addAmounts(...amounts: string[]): string {
  return amounts.reduce((sum, a) => sum.plus(a), new Exact(0)).toFixed();
}

export function subtractAmounts(from: string, amount: string): string {
  return new Exact(from).minus(amount).toFixed();
}

export function amountsEqual(a: string, b: string): boolean {
  return new Exact(a).eq(b);
}

export function isPositiveAmount(amount: string): boolean {
  return new Exact(amount).gt(0);
}

/** `amount / divisor` rounded down to the currency's minor unit: e.g. an instalment that never overshoots. */
export function divideDown(amount: string, divisor: number, currency: string): string {
  return new Exact(amount).div(divisor).toDecimalPlaces(minorUnits(currency), Exact.ROUND_DOWN).toFixed();
}

export function multiplyAmount(amount: string, factor: number): string {
  return new Exact(amount).times(factor).toFixed();
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareAmounts(a: string, b: string): number {
  return new Exact(a).comparedTo(b);
}

export function minAmount(a: string, b: string): string {
  return compareAmounts(a, b) <= 0 ? normalizeAmount(a) : normalizeAmount(b);
}

/** The currency's smallest amount: "0.01" in AUD, "1" in JPY, "0.001" in KWD. */
export function minorUnitAmount(currency: string): string {
  return new Exact(10).pow(-minorUnits(currency)).toFixed();
}
