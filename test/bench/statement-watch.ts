/**
 * Watches a database for the app's longest-running statement while a scenario runs: every 250 ms, the statement of
 * another session of the same database that has been running longest. What it reports is how long a statement was
 * *seen* running (a lower bound, to the sample's interval). A claim that ran 31 s on CPU under the production
 * profile's burst (docs/operators/performance.md) was found this way, by hand; the burst benches now print it, so a
 * plan that goes wrong under load shows in the run that meets it.
 */
import type { Db } from '../../core/platform/db';
import { sampleUntilStopped, type Sampling } from './sampler';

export interface LongestStatement {
  ms: number;
  /** The statement's first characters, whitespace folded. */
  query: string;
}

const SAMPLE_EVERY_MS = 250;

/** Samples until stopped; `stop` resolves with the longest statement seen, or undefined when none was seen running. */
export function watchStatements(db: Db): Sampling<LongestStatement | undefined> {
  return sampleUntilStopped(
    async () => {
      const { rows } = await db.raw<{ rows: LongestStatement[] }>(
        `select (extract(epoch from clock_timestamp() - query_start) * 1000)::float8 as ms,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 80) as query
           from pg_stat_activity
          where state = 'active' and datname = current_database() and pid <> pg_backend_pid()
          order by query_start limit 1`,
      );
      return rows[0];
    },
    (longest: LongestStatement | undefined, now) => (now && now.ms > (longest?.ms ?? 0) ? now : longest),
    undefined,
    SAMPLE_EVERY_MS,
  );
}
