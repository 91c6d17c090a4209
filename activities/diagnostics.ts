/** Activities of the diagnostic probe: one real PostgreSQL round trip, so a probe proves the worker's database too. */
import { log } from '@temporalio/activity';
import type { Db } from '../core/platform/db';

export interface ProbeResult {
  /** The database's own clock (ISO 8601 UTC), so the answer cannot come from anywhere but PostgreSQL. */
  databaseTime: string;
}

export function createDiagnosticsActivities({ db }: { db: Db }) {
  return {
    async recordProbe(probeId: string): Promise<ProbeResult> {
      const { rows } = await db.raw<{ rows: { database_time: Date }[] }>('select now() as database_time');
      const databaseTime = rows[0]?.database_time;
      if (!(databaseTime instanceof Date)) throw new Error('select now() returned no timestamp');
      log.info('diagnostic probe recorded', { probeId });
      return { databaseTime: databaseTime.toISOString() };
    },
  };
}

export type DiagnosticsActivities = ReturnType<typeof createDiagnosticsActivities>;
