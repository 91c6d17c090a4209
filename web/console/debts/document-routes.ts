/**
 * A debt's document, downloaded through the console session: the same read as the API's
 * `GET /v1/debts/{id}/documents/{documentId}/content` (the session's organisation first, so another organisation's
 * document, or one of another debt, is a 404 page) and the same download headers (an attachment, never inline).
 */
import type Router from '@koa/router';
import { openDebtDocument } from '../../../core/documents/documents';
import { documentDownloadHeaders } from '../../../core/documents/download-headers';
import { errors } from '../../../core/platform/errors';
import type { ConsoleContext } from '../shared/console-context';
import { signedIn } from '../shared/signed-in';

export function documentHref(debtId: string, documentId: string): string {
  return `/console/debts/${debtId}/documents/${documentId}/content`;
}

export function documentRoutes(router: Router, c: ConsoleContext): void {
  const { db, documents } = c.deps;

  router.get('/console/debts/:id/documents/:documentId/content', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const opened = await openDebtDocument(
      { db, store: documents },
      session.organizationId,
      ctx.params.id ?? '',
      ctx.params.documentId ?? '',
    );
    if (!opened) throw errors.notFound('document');
    ctx.set(documentDownloadHeaders(opened.document));
    ctx.type = opened.document.contentType;
    ctx.body = opened.content;
  });
}
