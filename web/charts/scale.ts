/** Small numeric helpers of the server-side charts: a round axis maximum and short axis labels. */

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value` (1 for nothing to show), so gridlines fall on round numbers. */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');

/** `12.5K` for an axis label; the tables carry the exact figures. */
export function shortNumber(value: number): string {
  return compact.format(value);
}

/** `12,345`. */
export function count(value: number): string {
  return whole.format(value);
}

/** `98.5 %` (one decimal, never rounded up to 100 % while anything failed). */
export function percent(ratio: number): string {
  const tenths = Math.floor(ratio * 1000) / 10;
  return `${tenths.toFixed(1)} %`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-11-03` as `3 Nov`. */
export function shortDate(isoDay: string): string {
  const [, month, day] = isoDay.split('-').map(Number) as [number, number, number];
  return `${day} ${MONTHS[month - 1]}`;
}
