/**
 * Operator CLI: organisations and API keys. `--mode` picks the database (production or sandbox).
 *   npm run cli -- org create --name "Acme Lending"
 *   npm run cli -- key create --org <id> --name "CI" --scopes all
 *   npm run cli -- secrets reseal
 *   npm run cli -- lifecycle backfill
 *   npm run cli -- listen --forward-to http://localhost:4000/hook --api-key ak_test_…   (the SDK's, docs/sdk.md)
 *   npm run cli -- user invite --org <id> --email dev@example.com --role developer
 */
import { configOrExit, loadConfig, processEnv, type Mode } from '../core/platform/config';
import { createDb } from '../core/platform/db';
import { createSecretBox } from '../core/platform/secret-box';
import { createMailer, type Mailer } from '../core/notifications/mail';
import type { Client } from '@temporalio/client';
import { closeTemporalClient, createTemporalClient } from '../core/temporal/connection';
import { runListen } from '../sdk/src/cli';
import { runCommand, USAGE } from './cli/commands';

function takeMode(argv: string[]): { mode: Mode; rest: string[] } {
  const rest = [...argv];
  const at = rest.findIndex((a) => a === '--mode' || a.startsWith('--mode='));
  if (at === -1) return { mode: 'production', rest };
  const value = rest[at]!.includes('=') ? rest[at]!.split('=')[1] : rest[at + 1];
  rest.splice(at, rest[at]!.includes('=') ? 1 : 2);
  if (value !== 'production' && value !== 'sandbox') {
    process.stderr.write(`error: --mode must be production or sandbox\n${USAGE}\n`);
    process.exit(64);
  }
  return { mode: value, rest };
}

async function main(): Promise<void> {
  // `listen` is a client of the API (with an API key), not of its database: the SDK's command, as is.
  if (process.argv[2] === 'listen') {
    process.exitCode = await runListen(process.argv.slice(3));
    return;
  }
  const { mode, rest } = takeMode(process.argv.slice(2));
  // Only `secrets reseal` needs the webhook keys; the organisation and key commands run without them.
  const config = configOrExit(() => loadConfig(processEnv({ API_MODE: mode }), { secretKeyOptional: true }));
  const db = createDb(config.databaseUrl, { pool: { min: 0, max: 2 } });
  let temporal: Client | undefined;
  let mailer: Mailer | undefined;
  try {
    process.exitCode = await runCommand(rest, {
      db,
      mode,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
      secretBox: () => createSecretBox(config.webhooks.secretKeys),
      temporal: () => (temporal ??= createTemporalClient(config.temporal.address, config.temporal.namespace)),
      mail: {
        mailer: () => (mailer ??= createMailer(config.mail)),
        consoleBaseUrl: mode === 'production' ? config.productionBaseUrl : config.sandboxBaseUrl,
      },
    });
  } finally {
    await db.destroy();
    mailer?.close();
    if (temporal) await closeTemporalClient(temporal);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`cli failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
