/**
 * Runs the knex migrations in `migrations/` on DATABASE_URL (read through the validated config).
 *   npx tsx scripts/migrate.ts [up]   apply every pending migration (the default)
 *   npx tsx scripts/migrate.ts down   roll back every applied migration
 * Migration files are `YYYYMMDDHHMMSS_verb_object.ts`; tsx loads them. Compiled (`node dist/scripts/migrate.js`, as
 * the Docker image runs it) the same migrations are loaded from dist/migrations/*.js under their recorded `.ts` names,
 * so a database migrated by either way is up to date for the other.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { configOrExit, loadConfig } from '../core/platform/config';
import { createDb } from '../core/platform/db';
import { RUNNING_COMPILED } from '../core/platform/project-root';

/** Shared with the migration test so both run the migrations exactly the same way. */
export const migrationConfig: Knex.MigratorConfig = RUNNING_COMPILED
  ? { migrationSource: compiledMigrations(path.resolve(__dirname, '..', 'migrations')) }
  : { directory: path.resolve(__dirname, '..', 'migrations'), loadExtensions: ['.ts'] };

/** dist/migrations/*.js, named as their sources (knex_migrations records `<name>.ts`). */
function compiledMigrations(directory: string): Knex.MigrationSource<string> {
  return {
    getMigrations: async () =>
      (await readdir(directory)).filter((file) => file.endsWith('.js')).sort((a, b) => a.localeCompare(b)),
    getMigrationName: (file) => file.replace(/\.js$/, '.ts'),
    getMigration: async (file) => (await import(path.join(directory, file))) as Knex.Migration,
  };
}

export type Direction = 'up' | 'down';

/** Applies (`up`) or rolls back all (`down`) migrations; returns the file names that ran, in order. */
export async function migrate(db: Knex, direction: Direction): Promise<string[]> {
  const [, files] =
    direction === 'up'
      ? ((await db.migrate.latest(migrationConfig)) as [number, string[]])
      : ((await db.migrate.rollback(migrationConfig, true)) as [number, string[]]);
  return files;
}

function parseDirection(arg: string | undefined): Direction {
  if (arg === undefined || arg === 'up' || arg === 'latest') return 'up';
  if (arg === 'down' || arg === 'rollback') return 'down';
  process.stderr.write(`usage: migrate.ts [up|down] (got "${arg}")\n`);
  process.exit(64); // EX_USAGE
}

/** The database name only: the URL carries the password. */
function databaseName(databaseUrl: string): string {
  return new URL(databaseUrl).pathname.replace(/^\//, '') || '(default database)';
}

async function main(): Promise<void> {
  const direction = parseDirection(process.argv[2]);
  const config = configOrExit(() => loadConfig(undefined, { secretKeyOptional: true }));
  const db = createDb(config.databaseUrl, { pool: { min: 0, max: 1 }, unboundedStatements: true });
  const name = databaseName(config.databaseUrl);
  try {
    const files = await migrate(db, direction);
    const verb = direction === 'up' ? 'applied' : 'rolled back';
    if (files.length === 0) console.log(`${name}: nothing to ${direction === 'up' ? 'apply' : 'roll back'}`);
    else console.log(`${name}: ${verb} ${files.length}:\n${files.map((f) => `  ${f}`).join('\n')}`);
  } finally {
    await db.destroy();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
