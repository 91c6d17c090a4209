/** Databases made for one test or bench run on the test database's server, beside the shared test database. */
import { createDb, type Db } from '../../core/platform/db';
import { testEnv } from './env';

/** `url` with its database replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates `name` empty (first dropping one left by an earlier run, its connections closed); returns its URL. */
export async function createScratchDatabase(name: string): Promise<string> {
  await onServer(async (admin) => {
    await admin.raw('drop database if exists ?? with (force)', [name]);
    await admin.raw('create database ??', [name]);
  });
  return withDatabase(testEnv.databaseUrl, name);
}

/** Drops `name`, closing any connection still open on it. */
export async function dropScratchDatabase(name: string): Promise<void> {
  await onServer((admin) => admin.raw('drop database if exists ?? with (force)', [name]));
}

async function onServer(work: (admin: Db) => Promise<unknown>): Promise<void> {
  const admin = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 1 } });
  try {
    await work(admin);
  } finally {
    await admin.destroy();
  }
}
