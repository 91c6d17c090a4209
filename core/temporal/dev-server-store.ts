/**
 * Where `npm start`'s Temporal dev server keeps its state: a SQLite file, in write-ahead-log mode, synced at
 * checkpoints rather than at every commit (`synchronous=normal`). The dev server's SQLite default is a rollback
 * journal synced on every commit, and a workflow's start and each of its tasks are commits: measured on this machine
 * (no-op workflows, one activity each), 18–20 workflows a second against 28–33 in this mode and 33–34 with no file
 * at all. A committed transaction survives the server being killed in this mode; only the host losing power can take
 * the last ones back, which a development server may risk. (The production profile's server is on PostgreSQL.)
 */
export const DEV_SERVER_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal'];

/** `temporal server start-dev` arguments that keep its state in `dbFile` as above. */
export function devServerStoreArgs(dbFile: string): string[] {
  return ['--db-filename', dbFile, ...DEV_SERVER_SQLITE_PRAGMAS.flatMap((pragma) => ['--sqlite-pragma', pragma])];
}
