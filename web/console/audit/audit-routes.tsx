/** The Audit log page's route: owners and admins only, newest first, filtered by actor and action, paged by a cursor. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isAuditAction, listAudit, listAuditActors } from '../../../core/staff/audit-log';
import { listConsoleKeys } from '../../../core/staff/console-keys';
import { errors } from '../../../core/platform/errors';
import { requireAuditReading } from '../../../core/staff/roles';
import type { ConsoleContext } from '../shared/console-context';
import { queryValue } from '../shared/http';
import { signedIn } from '../shared/signed-in';
import { AuditBody, type AuditQuery } from './audit-page';

const AUDIT_PER_PAGE = 50;

export function auditRoutes(router: Router, c: ConsoleContext): void {
  const { db, config } = c.deps;
  const mode = config.mode;

  router.get('/console/audit', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    requireAuditReading(session.role);
    const query = auditQuery(ctx);
    const cursor = queryValue(ctx, 'cursor');
    const filter = { actorEmail: query.actor || undefined, action: query.action || undefined };
    const [page, actors, keys] = await Promise.all([
      listAudit(db, session.organizationId, mode, { limit: AUDIT_PER_PAGE, cursor }, filter),
      listAuditActors(db, session.organizationId, mode),
      listConsoleKeys(db, session.organizationId, mode),
    ]);
    const names = { keys: new Map(keys.map((k) => [k.id, k.name])) };
    c.page(
      ctx,
      'Audit log',
      <AuditBody
        entries={page.data}
        names={names}
        actors={actors}
        query={query}
        nextCursor={page.nextCursor}
        paged={cursor !== undefined}
      />,
    );
  });
}

function auditQuery(ctx: Context): AuditQuery {
  const action = queryValue(ctx, 'action') ?? '';
  if (action !== '' && !isAuditAction(action)) throw errors.invalidRequest(`There is no audit action ${action}.`);
  const actor = queryValue(ctx, 'actor') ?? '';
  if (actor.length > 320) throw errors.invalidRequest('The actor filter is an email address.');
  return { actor, action };
}
