/**
 * The debtor portal over plain HTTP, for tests of its pay flow that need no browser (and many tabs at once): a
 * verified visit is made by the portal's own session store, as a proven second factor makes it (the second factor
 * itself is the portal-access tests' subject), and pages are fetched and forms posted with its cookie and CSRF token.
 */
import type { TestServer } from './app';
import { issuePortalLink } from '../../core/portal/links';
import { portalCookieNames } from '../../web/portal/portal-context';
import { createPortalSessionStore } from '../../core/portal/portal-sessions';
import { testDb, testRedis } from './resources';

export interface PortalVisitor {
  /** GET a portal page: its status and HTML. */
  get(path: string): Promise<{ status: number; html: string }>;
  /** POST a form as the page's own form would (same origin, the visit's CSRF token). */
  /** POST a form (redirects not followed: `location` says where one points). */
  post(
    path: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; html: string; location: string | null }>;
}

/** `headers` go with every request (a host behind a TLS proxy needs its `X-Forwarded-Proto: https`). */
export async function visitPortal(
  server: TestServer,
  debt: { organizationId: string; debtId: string; debtorId: string },
  headers: Record<string, string> = {},
): Promise<PortalVisitor> {
  const { linkId } = await issuePortalLink(testDb(), { organizationId: debt.organizationId, debtId: debt.debtId });
  const { config } = server;
  const sessions = createPortalSessionStore({
    redis: testRedis(),
    mode: config.mode,
    settings: {
      idleTimeoutMs: config.portal.sessionIdleTimeoutMs,
      absoluteLifetimeMs: config.portal.sessionAbsoluteLifetimeMs,
    },
  });
  const id = await sessions.create({ ...debt, linkId });
  const session = await sessions.touch(id);
  if (!session) throw new Error('the portal session vanished at once');
  const cookie = `${portalCookieNames(config.console.secureCookies).session}=${id}`;
  const read = async (res: Response) => ({
    status: res.status,
    html: await res.text(),
    location: res.headers.get('location'),
  });
  return {
    get: async (path) => read(await fetch(`${server.baseUrl}${path}`, { headers: { ...headers, Cookie: cookie } })),
    post: async (path, fields) =>
      read(
        await fetch(`${server.baseUrl}${path}`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            ...headers,
            Cookie: cookie,
            Origin: server.baseUrl,
            'Content-Type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ _csrf: session.csrfToken, ...fields }).toString(),
        }),
      ),
  };
}

/** The hidden attempt key of a pay form's HTML. */
export function attemptKeyOf(html: string): string | undefined {
  return /name="attempt" value="([^"]+)"/.exec(html)?.[1];
}
