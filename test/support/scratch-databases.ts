/** Databases made for one test or bench run on the test database's server, beside the test process's own. */
import { createDb, type Db } from '../../core/platform/db';
import { Redis } from 'ioredis';
import { escapeIdentifier, escapeLiteral } from 'pg';
import { templateDatabaseUrl, testEnv } from './env';
import { testSlot } from './test-slot';
import { waitFor } from './wait';

/** `url` with its database replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** `name` as this test process's slot names it, so that processes side by side never share a scratch database. */
function inSlot(name: string): string {
  return `${name}_s${testSlot()}`;
}

/** Creates `name` empty (first dropping one left by an earlier run, its connections closed); returns its URL. */
export async function createScratchDatabase(name: string): Promise<string> {
  await onServer(async (admin) => {
    await admin.raw('drop database if exists ?? with (force)', [inSlot(name)]);
    await admin.raw('create database ??', [inSlot(name)]);
  });
  return withDatabase(testEnv.databaseUrl, inSlot(name));
}

/** Drops `name`, closing any connection still open on it. */
export async function dropScratchDatabase(name: string): Promise<void> {
  await onServer((admin) => admin.raw('drop database if exists ?? with (force)', [inSlot(name)]));
}

let prepared: Promise<void> | undefined;

/**
 * Makes this process's slot ready, once per process: its database a fresh copy of the migrated template (what an
 * earlier run left is dropped) and its Redis database empty. Nothing when the run names its own databases.
 */
export function prepareTestSlot(): Promise<void> {
  prepared ??= (async () => {
    if (testEnv.slotDatabase) {
      const name = new URL(testEnv.databaseUrl).pathname.slice(1);
      const template = new URL(templateDatabaseUrl).pathname.slice(1);
      await onServer(
        async (admin) => {
          await admin.raw('drop database if exists ?? with (force)', [name]);
          // Copying needs the template to have no session; slots starting together copy it at the same time, which
          // PostgreSQL allows, but a session opened on it by hand refuses the copy: retried for a while, then said.
          await waitFor(
            () =>
              admin.raw('create database ?? template ??', [name, template]).then(
                () => true,
                (err: Error) => {
                  if (/being accessed by other users/.test(err.message)) return false;
                  throw err;
                },
              ),
            { what: `the template database ${template} to be free to copy`, timeoutMs: 10_000, intervalMs: 200 },
          );
          await copyRoleSettings(admin, template, name);
        },
        withDatabase(templateDatabaseUrl, 'postgres'),
      );
    }
    if (process.env.TEST_REDIS_URL === undefined) {
      const redis = new Redis(testEnv.redisUrl, { maxRetriesPerRequest: 1 });
      try {
        await redis.flushdb();
      } finally {
        redis.disconnect();
      }
    }
  })();
  return prepared;
}

/**
 * A copy of a database does not take the per-database role settings its migrations made (`alter role … in database
 * … set`: the role timeouts), which PostgreSQL keeps beside the database, not in it: they are set on the copy too.
 */
async function copyRoleSettings(admin: Db, from: string, to: string): Promise<void> {
  const { rows } = await admin.raw<{ rows: { role: string; setting: string }[] }>(
    `select r.rolname as role, c as setting
       from pg_db_role_setting s
       join pg_roles r on r.oid = s.setrole
       join pg_database d on d.oid = s.setdatabase,
       unnest(s.setconfig) c
      where d.datname = ?`,
    [from],
  );
  for (const { role, setting } of rows) {
    const at = setting.indexOf('=');
    const [parameter, value] = [setting.slice(0, at), setting.slice(at + 1)];
    await admin.raw(
      `alter role ${escapeIdentifier(role)} in database ${escapeIdentifier(to)} set ${escapeIdentifier(parameter)} = ${escapeLiteral(value)}`,
    );
  }
}

async function onServer(work: (admin: Db) => Promise<unknown>, url = testEnv.databaseUrl): Promise<void> {
  const admin = createDb(url, { pool: { min: 0, max: 1 } });
  try {
    await work(admin);
  } finally {
    await admin.destroy();
  }
}
