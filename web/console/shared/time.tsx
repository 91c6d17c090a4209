/**
 * The console's one way of writing a time: a relative phrase rendered on the server ("3 hours ago", "in 5 minutes")
 * in a `<time datetime>`, with the exact UTC time in its `title` and after it for screen readers and print. A page
 * has no script, so the phrase is as of the request; the exact time is always one hover (or one read) away.
 */
import { cachedIn } from '../../../core/platform/bounded-cache';
import { when } from './format';

const UNITS: [unit: Intl.RelativeTimeFormatUnit, ms: number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

const phrase = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
/** The phrases made so far ("3 hours ago"): a page writes 150 times, few of them different, and Intl is slow. */
const phrases = new Map<string, string>();

/** `iso` relative to `now`: "just now" within a second, else the largest whole unit ("2 hours ago", "in 5 minutes"). */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const diff = new Date(iso).getTime() - now.getTime();
  const size = Math.abs(diff);
  if (size < 1_000) return 'just now';
  const [unit, ms] = UNITS.find(([, unitMs]) => size >= unitMs) ?? UNITS[UNITS.length - 1]!;
  const count = Math.trunc(diff / ms);
  return cachedIn(phrases, `${count} ${unit}`, () => phrase.format(count, unit));
}

/** A time as the console shows it; `none` (a dash by default) when there is none. */
export function When({ iso, none = '–', now }: { iso: string | null | undefined; none?: string; now?: Date }) {
  if (!iso) return <>{none}</>;
  const exact = when(iso);
  return (
    <time datetime={iso} title={exact}>
      {relativeTime(iso, now)}
      <span class="visually-hidden"> ({exact})</span>
    </time>
  );
}
