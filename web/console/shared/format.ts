/** How the console writes times and delivery statuses. */
import type { DeliveryStatus } from '../../../core/webhooks/deliveries';

/** `2026-12-03 10:15:02 UTC` from an ISO 8601 instant; a dash for none (pages show it through shared/time.tsx). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  return iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
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
