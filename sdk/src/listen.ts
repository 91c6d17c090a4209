/**
 * `listen`: your organisation's events forwarded to a local URL, signed, without a public receiver (as `stripe listen`).
 *
 * GET /v1/events lists newest first and only below its horizon, so a new event only ever appears at the top of the
 * list (core/events/event-list.ts): each poll reads from the top down to the last event forwarded, and forwards what
 * is above it oldest first, in commit order. The last event forwarded and the signing secret are kept in a small
 * state file, written after each forward: a restart (of `listen` or of the API) resumes after it, nothing twice.
 * A poll that fails (the API restarting, a 503) or a forward the local URL does not accept is tried again next time.
 * If the last event forwarded is no longer listed (purged after the retention period) or is too far behind, listen
 * says so and starts again from the newest event instead of replaying the organisation's whole history.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import type { ApiClient } from './client';
import type { components } from './generated/openapi';
import { pages } from './pagination';
import { DELIVERY_ID_HEADER, MODE_HEADER, SIGNATURE_HEADER, signPayload } from './webhooks';

type ListedEvent = components['schemas']['Event'];

export interface ListenState {
  /** The secret every forwarded event is signed with; verify with it as with your receiver's own. */
  secret: string;
  /** The newest event forwarded; null when none was there at the first start. */
  lastEventId: string | null;
}

export interface ListenOptions {
  api: ApiClient;
  forwardTo: string;
  stateFile: string;
  /** Sent as `Service-Mode`, as our deliveries do: the mode of the key the events are read with. */
  mode?: 'live' | 'test';
  /** Between polls, in ms (default 1,000). */
  intervalMs?: number;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export async function readState(file: string): Promise<ListenState | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as ListenState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writeState(file: string, state: ListenState): Promise<void> {
  await mkdir(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** More events than this behind, `listen` starts again from the newest rather than replay them all. */
export const MAX_BEHIND = 10_000;

/**
 * The events above `lastEventId`, oldest first (all of them when it is null), or `purged` when it is set but no
 * longer listed (events are kept for a retention period: listen was stopped for longer than that). Only the newest
 * event's id is kept past MAX_BEHIND events, so a long way behind does not fill memory.
 */
async function eventsAfter(
  api: ApiClient,
  lastEventId: string | null,
): Promise<{ events: ListedEvent[] } | { purged: true; newestId: string | null }> {
  const above: ListedEvent[] = [];
  let newestId: string | null = null;
  let seen = 0;
  for await (const page of pages(api, '/v1/events', { limit: 100 })) {
    for (const event of page.data) {
      if (event.id === lastEventId) {
        if (seen > MAX_BEHIND) return { purged: true, newestId };
        return { events: above.reverse() };
      }
      newestId ??= event.id;
      if (++seen <= MAX_BEHIND) above.push(event);
    }
  }
  return lastEventId === null ? { events: above.reverse() } : { purged: true, newestId };
}

/** The newest event now, where a first start begins (only what happens from now on is forwarded). */
async function newestEventId(api: ApiClient): Promise<string | null> {
  for await (const page of pages(api, '/v1/events', { limit: 1 })) return page.data[0]?.id ?? null;
  return null;
}

/** Loads the state file, or starts one (a new secret, from the newest event now, once the API answers). */
export async function startState(
  api: ApiClient,
  stateFile: string,
  options: Pick<ListenOptions, 'intervalMs' | 'log' | 'signal'> = {},
): Promise<ListenState> {
  const existing = await readState(stateFile);
  if (existing) return existing;
  let lastEventId: string | null | undefined;
  while (lastEventId === undefined) {
    try {
      lastEventId = await newestEventId(api);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      options.log?.(`could not read events (${(error as Error).message}); retrying`);
      await pause(options.intervalMs ?? 1000);
    }
  }
  const state = { secret: `whsec_${randomBytes(24).toString('base64url')}`, lastEventId };
  await writeState(stateFile, state);
  return state;
}

/** Posts the delivered envelope (exactly id, type, createdAt, data), signed; true when the URL answered 2xx. */
async function forward(event: ListedEvent, options: ListenOptions, secret: string): Promise<boolean> {
  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });
  try {
    const response = await fetch(options.forwardTo, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [SIGNATURE_HEADER]: signPayload(secret, body),
        [DELIVERY_ID_HEADER]: randomUUID(),
        ...(options.mode ? { [MODE_HEADER]: options.mode } : {}),
      },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    options.log?.(`${event.type} ${event.id} -> ${options.forwardTo} [${response.status}]`);
    return response.ok;
  } catch (error) {
    options.log?.(`${event.type} ${event.id} -> ${options.forwardTo} failed: ${(error as Error).message}`);
    return false;
  }
}

/** One poll: forwards every new event in order, stopping at the first the URL refuses. Returns how many went. */
export async function pollOnce(options: ListenOptions, state: ListenState): Promise<number> {
  const found = await eventsAfter(options.api, state.lastEventId);
  if ('purged' in found) {
    options.log?.(
      `the last event forwarded (${state.lastEventId}) is no longer listed or more than ${MAX_BEHIND} events ago; ` +
        `resuming from the newest event (${found.newestId ?? 'none'}) — read what came between with GET /v1/events`,
    );
    state.lastEventId = found.newestId;
    await writeState(options.stateFile, state);
    return 0;
  }
  let forwarded = 0;
  for (const event of found.events) {
    if (!(await forward(event, options, state.secret))) break;
    state.lastEventId = event.id;
    await writeState(options.stateFile, state);
    forwarded++;
  }
  return forwarded;
}

/** Polls until `signal` aborts. */
export async function listen(options: ListenOptions, state: ListenState): Promise<void> {
  const interval = options.intervalMs ?? 1000;
  let failing = false;
  while (!options.signal?.aborted) {
    try {
      await pollOnce(options, state);
      if (failing) options.log?.('reading events again');
      failing = false;
    } catch (error) {
      if (!failing) options.log?.(`could not read events (${(error as Error).message}); retrying`);
      failing = true;
    }
    await pause(interval, undefined, { signal: options.signal }).catch(() => undefined);
  }
}
