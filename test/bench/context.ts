/** What every scenario of one `npm run bench` shares: the database, the processes under test, the report. */
import type { Db } from '../../core/platform/db';
import type { BenchReport } from './report';
import type { ApiProcess } from './support';

export interface BenchContext {
  db: Db;
  databaseUrl: string;
  redisUrl: string;
  /** Our API, one process (API_PROCESSES=1): per-process figures. */
  api: ApiProcess;
  /** The bare ceilings' Koa process (bare-server.ts). */
  bare: ApiProcess;
  report: BenchReport;
  /** Seconds per measured load; warm-ups take `warmUp`. */
  duration: number;
  warmUp: number;
  /** Row counts of the list tenants: small, large (the ratio's), huge (the p99 check's). */
  sizes: [number, number, number];
  quick: boolean;
}
