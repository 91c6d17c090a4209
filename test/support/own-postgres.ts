/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl into a temp dir, on a free loopback port), for fault tests
 * that stop or restart the database: the machine's shared server on 5432 must never be touched. As root, the server
 * runs as the `postgres` user (PostgreSQL refuses to run as root), as scripts/lib/postgres.sh does.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createDb, type Db } from '../../core/platform/db';
import { migrate } from '../../scripts/migrate';
import { freePort } from './ports';
import { isAlive } from './processes';
import { waitFor } from './wait';

const run = promisify(execFile);
const PG_BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
const ROLE = 'client_api';
const DATABASE = 'client_api_faults';
export const TEST_CLIENT_NAME = 'fault-test';

export interface OwnPostgres {
  /** `postgres://client_api@127.0.0.1:<port>/client_api_faults`, migrated. */
  databaseUrl: string;
  /**
   * A small pool on the database, for the test's own reads, writes and `pg_terminate_backend`. Its connections are
   * named `fault-test` (the URL's parameter wins over createDb's name), so killing the services' spares them.
   */
  db: Db;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGKILL to the postmaster (a crash: its backends follow it); `start` then runs crash recovery. */
  kill(): Promise<void>;
  /** Stops the server for good and deletes its files. Safe to call after a failed start. */
  destroy(): Promise<void>;
}

/** Runs a PostgreSQL binary, as `postgres` when we are root. */
async function pgCommand(binary: string, args: string[]): Promise<void> {
  const file = path.join(PG_BIN, binary);
  const asRoot = process.getuid?.() === 0;
  await run(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, { timeout: 60_000 });
}

export interface OwnPostgresOptions {
  /**
   * Keep `synchronous_commit` on, so a commit is on its way to disk before it is acknowledged: what a test that
   * SIGKILLs the server and counts what survived needs (asynchronous commit loses the last transactions of a crash).
   */
  durableCommits?: boolean;
}

export async function startOwnPostgres(options: OwnPostgresOptions = {}): Promise<OwnPostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'own-postgres-'));
  const dataDir = path.join(dir, 'data');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    // A throwaway cluster: durability is not what these tests are about, except where a test kills the server. A
    // killed process (not the machine) loses nothing the kernel was given, so fsync may stay off even then.
    `-c fsync=off -c synchronous_commit=${options.durableCommits ? 'on' : 'off'} -c full_page_writes=off`,
  ].join(' ');
  const start = () =>
    pgCommand('pg_ctl', ['-D', dataDir, '-o', serverOptions, '-l', path.join(dir, 'server.log'), '-w', 'start']);
  const stop = () => pgCommand('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  let db: Db | undefined;
  let running = false;
  const destroy = async () => {
    await db?.destroy().catch(() => undefined);
    if (running) await pgCommand('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    running = false;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pgCommand('initdb', ['-D', dataDir, '-U', ROLE, '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await start();
    running = true;
    const admin = createDb(`postgres://${ROLE}@127.0.0.1:${port}/postgres`, { pool: { min: 0, max: 1 } });
    try {
      await admin.raw(`create database ${DATABASE}`);
    } finally {
      await admin.destroy();
    }
    const databaseUrl = `postgres://${ROLE}@127.0.0.1:${port}/${DATABASE}`;
    db = createDb(`${databaseUrl}?application_name=${TEST_CLIENT_NAME}`, { pool: { min: 0, max: 4 } });
    await migrate(db, 'up');
    return {
      databaseUrl,
      db,
      stop: async () => {
        await stop();
        running = false;
      },
      start: async () => {
        // After a kill the old backends may take a moment to notice their postmaster is gone and release memory.
        await waitFor(
          () =>
            start().then(
              () => true,
              () => false,
            ),
          {
            what: 'PostgreSQL to start again',
            timeoutMs: 30_000,
            intervalMs: 200,
          },
        );
        running = true;
      },
      kill: async () => {
        const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        process.kill(pid, 'SIGKILL');
        await waitFor(() => !isAlive(pid), { what: 'the postmaster to die', timeoutMs: 10_000 });
        running = false;
      },
      destroy,
    };
  } catch (err) {
    await destroy();
    throw err;
  }
}
