/** How the console writes times and delivery statuses. */
import type { DeliveryStatus } from '../../../core/webhooks/deliveries';

/** `2026-12-03 10:15:02 UTC` from an ISO 8601 instant; a dash for none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  return iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
}

/** `2026-12-03T09:15:00.000Z` as `2026-12-03 09:15 UTC`, for the debts' and debtors' pages; a dash for none. */
export function whenToMinute(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '–';
}

/** The console says Delivered for the API's `Succeeded`. */
export const STATUS_LABELS: Record<DeliveryStatus, string> = {
  Pending: 'Pending',
  Succeeded: 'Delivered',
  Failed: 'Failed',
};

/** A JSON value as indented text, for a `<pre>`. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
