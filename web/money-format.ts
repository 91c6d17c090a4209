/** How the pages write an amount of money: `1,250.50 AUD`, the currency's own minor-unit digits (console and portal). */
import { minorUnits } from '../core/debts/currencies';

/** One formatter per number of minor-unit digits: `toLocaleString` would build a new one on every call. */
const amountFormats = new Map<number, Intl.NumberFormat>();

/** `1250.5` AUD as `1,250.50 AUD`: the currency's own minor-unit digits. */
export function money(amount: number, currency: string): string {
  const digits = minorUnits(currency);
  let format = amountFormats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    amountFormats.set(digits, format);
  }
  return `${format.format(amount)} ${currency}`;
}
