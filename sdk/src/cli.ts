/**
 * The SDK's command line:
 *   client-api listen --forward-to http://localhost:4000/hook [--api-key ak_test_…] [--base-url URL]
 *                     [--state-file .client-api-listen.json] [--interval-ms 1000]
 * The key defaults to $CLIENT_API_KEY, the base URL to $CLIENT_API_BASE_URL or the key's host (sdk/src/client.ts).
 */
import { createClient } from './client';
import { listen, startState } from './listen';

export const LISTEN_USAGE =
  'usage: listen --forward-to <url> [--api-key <key>] [--base-url <url>] [--state-file <file>] [--interval-ms <ms>]';

function option(args: string[], name: string): string | undefined {
  const at = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (at === -1) return undefined;
  return args[at]!.includes('=') ? args[at]!.slice(name.length + 1) : args[at + 1];
}

/** Runs `listen` until SIGINT or SIGTERM; returns the exit code. */
export async function runListen(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const forwardTo = option(args, '--forward-to');
  const apiKey = option(args, '--api-key') ?? env.CLIENT_API_KEY;
  if (!forwardTo || !apiKey) {
    process.stderr.write(`${LISTEN_USAGE}\n(the key: --api-key or CLIENT_API_KEY)\n`);
    return 64;
  }
  const api = createClient({ apiKey, baseUrl: option(args, '--base-url') ?? env.CLIENT_API_BASE_URL });
  const stateFile = option(args, '--state-file') ?? '.client-api-listen.json';
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const intervalMs = Number(option(args, '--interval-ms') ?? 1000);
  const state = await startState(api, stateFile, { intervalMs, log, signal: stop.signal });
  log(`Ready! Your webhook signing secret is ${state.secret} (forwarding to ${forwardTo}; state in ${stateFile})`);
  const mode = apiKey.startsWith('ak_live_') ? 'live' : 'test';
  await listen({ api, forwardTo, stateFile, mode, intervalMs, log, signal: stop.signal }, state);
  return 0;
}

async function main(args: string[]): Promise<number> {
  if (args[0] === 'listen') return runListen(args.slice(1));
  process.stderr.write(`${LISTEN_USAGE}\n`);
  return 64;
}

/** The command's entry (sdk/bin/client-api.js, or this file run directly). */
export function runCli(args: string[]): void {
  main(args).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`listen failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) runCli(process.argv.slice(2));
