/** The Audit log page's route: owners and admins only, newest first, paged back by a cursor. */
import type Router from '@koa/router';
import { listAudit } from '../../../core/staff/audit-log';
import { requireAuditReading } from '../../../core/staff/roles';
import type { ConsoleContext } from '../shared/console-context';
import { queryValue } from '../shared/http';
import { signedIn } from '../shared/signed-in';
import { AuditBody } from './audit-page';

const AUDIT_PER_PAGE = 50;

export function auditRoutes(router: Router, c: ConsoleContext): void {
  const { db, config } = c.deps;
  const mode = config.mode;

  router.get('/console/audit', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    requireAuditReading(session.role);
    const cursor = queryValue(ctx, 'cursor');
    const page = await listAudit(db, session.organizationId, mode, { limit: AUDIT_PER_PAGE, cursor });
    const olderHref = page.nextCursor ? `/console/audit?cursor=${encodeURIComponent(page.nextCursor)}` : null;
    c.page(ctx, 'Audit log', <AuditBody entries={page.data} olderHref={olderHref} paged={cursor !== undefined} />);
  });
}
