/** How the portal writes money and dates for a debtor: `1,250.50 AUD`, `3 December 2026`. */
import { money } from '../console/debts-pages';

export { money };

/** A decimal string amount (as schedules hold them). */
export function moneyText(amount: string, currency: string): string {
  return money(Number(amount), currency);
}

/**
 * Made once: `toLocaleDateString` builds a new formatter on every call, which was a sixth of the debt page's CPU
 * (a page writes a date per instalment and per transaction).
 */
const LONG_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** `2026-12-03` (or an ISO instant) as `3 December 2026`, in UTC. */
export function longDate(value: string): string {
  return LONG_DATE.format(new Date(value.length === 10 ? `${value}T00:00:00Z` : value));
}
