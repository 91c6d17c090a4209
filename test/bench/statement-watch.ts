/**
 * Watches a database for the app's longest-running statement while a scenario runs: every 250 ms, the statement of
 * another session of the same database that has been running longest. What it reports is how long a statement was
 * *seen* running (a lower bound, to the sample's interval). A claim that ran 31 s on CPU under the production
 * profile's burst (docs/operators/performance.md) was found this way, by hand; the burst benches now print it, so a
 * plan that goes wrong under load shows in the run that meets it.
 */
import type { Db } from '../../core/platform/db';

export interface LongestStatement {
  ms: number;
  /** The statement's first characters, whitespace folded. */
  query: string;
}

export interface StatementWatch {
  /** Stops sampling; the longest statement seen, or undefined when none was seen running at a sample. */
  stop(): Promise<LongestStatement | undefined>;
}

const SAMPLE_EVERY_MS = 250;

export function watchStatements(db: Db): StatementWatch {
  let longest: LongestStatement | undefined;
  let watching = true;
  let wake: () => void = () => undefined;
  const loop = (async () => {
    while (watching) {
      const { rows } = await db.raw<{ rows: { ms: number; query: string }[] }>(
        `select (extract(epoch from clock_timestamp() - query_start) * 1000)::float8 as ms,
                left(regexp_replace(query, '\\s+', ' ', 'g'), 80) as query
           from pg_stat_activity
          where state = 'active' and datname = current_database() and pid <> pg_backend_pid()
          order by query_start limit 1`,
      );
      const row = rows[0];
      if (row && row.ms > (longest?.ms ?? 0)) longest = { ms: row.ms, query: row.query };
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, SAMPLE_EVERY_MS);
      });
    }
  })();
  loop.catch(() => undefined); // a failed sample ends the watch; stop() throws its error
  return {
    async stop() {
      watching = false;
      wake();
      await loop;
      return longest;
    },
  };
}
