/**
 * Debtor portal sessions: made once the second factor is proven, for the one debt the link opened.
 * Kept by the shared Redis session store, indexed by the link, and valid only while that link is: revoking the link
 * (or issuing a new one) ends its sessions at their next request.
 */
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';
import type { Redis } from '../platform/redis';
import { queryNamed } from '../platform/prepared';
import {
  createRedisSessionStore,
  type RedisSessionStore,
  type SessionBasics,
  type SessionSettings,
} from '../platform/redis-sessions';

export interface PortalVisit {
  organizationId: string;
  debtId: string;
  debtorId: string;
  linkId: string;
}

export type PortalSession = PortalVisit & SessionBasics;

export type PortalSessionStore = RedisSessionStore<PortalVisit>;

/**
 * Keys start with the host's mode (`production:portal:…`): both hosts share one Redis, and a session made on one must
 * never open a page on the other.
 */
export function createPortalSessionStore(deps: {
  redis: Redis;
  mode: Mode;
  settings: SessionSettings;
}): PortalSessionStore {
  const { mode, ...rest } = deps;
  return createRedisSessionStore<PortalVisit>({ ...rest, prefix: `${mode}:portal`, ownerOf: (visit) => visit.linkId });
}

/** `isPortalLinkLive`'s statement, exported for the bench's bare route (test/bench/bare-portal.ts). */
export const LINK_LIVE_SQL = 'select 1 from portal_links where id = $1 and organization_id = $2 and revoked_at is null';

/** Whether the link a session came through is still live (not revoked, not replaced). */
export async function isPortalLinkLive(db: Db, organizationId: string, linkId: string): Promise<boolean> {
  // A named statement in PostgreSQL's text: every page of a visit asks it (core/platform/prepared.ts).
  const rows = await queryNamed(db, LINK_LIVE_SQL, [linkId, organizationId]);
  return rows.length > 0;
}
