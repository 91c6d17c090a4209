/**
 * The client console over plain HTTP, for tests of its rules that need no browser: a session made by the console's
 * own session store in the Redis the app reads (as test/bench/seed-console.ts does), GETs and form POSTs with that
 * cookie and the page's synchronizer token.
 */
import type { Mode } from '../../core/platform/mode';
import { createSessionStore, type SessionUser } from '../../core/staff/sessions';
import { testRedis } from './resources';

export interface ConsoleAnswer {
  status: number;
  location: string | null;
  text: string;
}

export interface ConsoleVisitor {
  get(path: string): Promise<ConsoleAnswer>;
  /** A form POST with the token of the page at `formPath` (default: `path`). */
  post(path: string, fields?: Record<string, string>, formPath?: string): Promise<ConsoleAnswer>;
}

const SETTINGS = { idleTimeoutMs: 30 * 60_000, absoluteLifetimeMs: 12 * 3_600_000 };

/** A signed-in visitor of the console at `baseUrl` (`mode`'s host), as `user`. */
export async function consoleVisitor(baseUrl: string, mode: Mode, user: SessionUser): Promise<ConsoleVisitor> {
  const id = await createSessionStore({ redis: testRedis(), mode, settings: SETTINGS }).create(user);
  return visitorWithSession(baseUrl, id);
}

/** A visitor holding the session cookie `id` (made on either host). */
export function visitorWithSession(baseUrl: string, id: string): ConsoleVisitor {
  const cookie = `console_session=${id}`;
  const answer = async (res: Response): Promise<ConsoleAnswer> => ({
    status: res.status,
    location: res.headers.get('location'),
    text: await res.text(),
  });
  const get = async (path: string) =>
    answer(await fetch(`${baseUrl}${path}`, { headers: { cookie }, redirect: 'manual' }));
  return {
    get,
    async post(path, fields = {}, formPath = path) {
      const page = await get(formPath);
      const csrf = /name="_csrf" value="([A-Za-z0-9_-]{43})"/.exec(page.text)?.[1] ?? '';
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });
      return answer(res);
    },
  };
}

/** The session id of a new session of `user` on `mode`'s host. */
export function newConsoleSession(mode: Mode, user: SessionUser): Promise<string> {
  return createSessionStore({ redis: testRedis(), mode, settings: SETTINGS }).create(user);
}
