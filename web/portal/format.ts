/** How the portal writes money and dates for a debtor: `1,250.50 AUD`, `3 December 2026`. */
import { cachedIn } from '../../core/platform/bounded-cache';
import { money } from '../money-format';

/**
 * Each text written once and then remembered: a page writes a date and an amount per instalment and per transaction,
 * the same few values on every visit, and `Intl` formatting was the largest part of rendering one (the portal bench,
 * docs/operators/performance.md). Bounded: emptied when full.
 */
function remembered(format: (key: string) => string, max = 10_000): (key: string) => string {
  const texts = new Map<string, string>();
  return (key) => cachedIn(texts, key, () => format(key), max);
}

const moneyTexts = remembered((key) => {
  const space = key.indexOf(' ');
  return money(Number(key.slice(0, space)), key.slice(space + 1));
});

/** A decimal string amount (as schedules and rows hold them), e.g. `400.2500`, in its currency. */
export function moneyText(amount: string, currency: string): string {
  return moneyTexts(`${amount} ${currency}`);
}

/**
 * Made once: `toLocaleDateString` builds a new formatter on every call, which was a sixth of the debt page's CPU
 * (a page writes a date per instalment and per transaction).
 */
const LONG_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

const longDates = remembered((value) => LONG_DATE.format(new Date(value.length === 10 ? `${value}T00:00:00Z` : value)));

/** `2026-12-03` (or an ISO instant) as `3 December 2026`, in UTC. */
export function longDate(value: string): string {
  return longDates(value);
}
