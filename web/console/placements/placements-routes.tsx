/**
 * The Placements pages' routes: the list and the upload (a `multipart/form-data` form, its CSRF token the first
 * field, read before any byte of the file is kept), a placement's page, its progress as JSON for the page's script,
 * the two CSV downloads, and cancel. The upload and the cancel are the API's (core/placements), for owners and admins,
 * each audited in the transaction of its change. The failed rows' file (debtor data as uploaded) is for the roles that
 * may have it (core/staff/roles.ts), a 403 page for the others. Another organisation's placement is a 404 page.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError, errors } from '../../../core/platform/errors';
import { newId } from '../../../core/platform/ids';
import { readMultipartUpload } from '../../../core/platform/multipart-upload';
import { failedRowsFile, rowProblemsFile } from '../../../core/placements/failed-rows-file';
import {
  acceptedPlacementFile,
  checkedFileOf,
  PLACEMENT_FILE_GONE,
  placementUploadOptions,
  startPlacement,
  type AcceptedPlacementFile,
} from '../../../core/placements/placement-upload';
import {
  getPlacementRow,
  listPlacements,
  listRowErrors,
  requestCancel,
  toPlacement,
  type PlacementRow,
} from '../../../core/placements/placements';
import { recordAudit } from '../../../core/staff/audit-log';
import {
  canDownloadPlacementRows,
  canPlaceDebts,
  requirePlacementRowsDownload,
  requirePlacing,
} from '../../../core/staff/roles';
import { csrfTokensMatch, type StaffSession } from '../../../core/staff/sessions';
import { loadWebAssets } from '../../assets';
import { PAGE_CSP, setPageHeaders } from '../../page';
import type { ConsoleContext } from '../shared/console-context';
import { checkSameOrigin, queryValue, seeOther } from '../shared/http';
import { actorOf, signedIn } from '../shared/signed-in';
import { loadPlacementProgressAsset } from './placement-progress-script';
import { placementProgress } from './placement-progress';
import { placementHref } from './placement-href';
import { PlacementsBody } from './placement-list-page';
import { PlacementBody } from './placement-page';

const PLACEMENTS_PER_PAGE = 25;
const ERRORS_PER_PAGE = 50;
/** A running placement's page runs its one same-origin script, which reads the progress JSON. */
const RUNNING_PAGE_CSP = `${PAGE_CSP}; script-src 'self'; connect-src 'self'`;

export function placementRoutes(router: Router, c: ConsoleContext): void {
  const { db, config, documents: store } = c.deps;
  const mode = config.mode;
  const stylesheet = loadWebAssets('placements.css', '/console/assets/placements/');
  const script = loadPlacementProgressAsset();
  router.get(stylesheet.stylesheetHref, stylesheet.serve);
  router.get(script.href, script.serve);

  async function placementOf(session: StaffSession, id: string | undefined): Promise<PlacementRow> {
    const row = await getPlacementRow(db, session.organizationId, id ?? '');
    if (!row) throw errors.notFound('placement');
    return row;
  }

  router.get('/console/placements', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const cursor = queryValue(ctx, 'cursor');
    const page = await listPlacements(db, session.organizationId, { limit: PLACEMENTS_PER_PAGE, cursor });
    const olderHref = page.nextCursor ? `/console/placements?cursor=${encodeURIComponent(page.nextCursor)}` : null;
    c.page(
      ctx,
      'Placements',
      <PlacementsBody
        placements={page.data}
        csrfToken={session.csrfToken}
        canPlace={canPlaceDebts(session.role)}
        stylesheetHref={stylesheet.stylesheetHref}
        olderHref={olderHref}
        paged={cursor !== undefined}
      />,
    );
  });

  router.post('/console/placements', async (ctx) => {
    checkSameOrigin(ctx, config.publicBaseUrl);
    const session = await c.session(ctx);
    if (!session) throw new ApiError('unauthenticated', 'Your session has ended. Sign in again.');
    requirePlacing(session.role);
    const runs = c.deps.placementRuns;
    if (!runs) throw new ApiError('service_unavailable', 'Placements cannot be started on this host.');
    const { file, validateOnly } = await readUploadForm(ctx, session, store);
    const id = newId();
    const placement = await startPlacement(
      { db, runs, transaction: (work) => db.transaction(work) },
      session.organizationId,
      id,
      file,
      {
        validateOnly,
        recordIn: (trx, p) =>
          recordAudit(trx, actorOf(session), mode, {
            action: 'placement.uploaded',
            target: p.id,
            details: { fileName: p.fileName, format: p.format, validateOnly: p.validateOnly },
          }),
      },
    );
    seeOther(ctx, placementHref(placement.id));
  });

  router.get('/console/placements/:id', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const row = await placementOf(session, ctx.params.id);
    const placement = toPlacement(row);
    const cursor = queryValue(ctx, 'errors');
    const errorsPage = await listRowErrors(db, session.organizationId, placement.id, {
      limit: ERRORS_PER_PAGE,
      cursor,
    });
    const progress = placementProgress(placement, new Date());
    if (!progress.finished) setPageHeaders(ctx, RUNNING_PAGE_CSP);
    const nextCursor = errorsPage?.nextCursor;
    c.page(
      ctx,
      `Placement: ${placement.fileName}`,
      <PlacementBody
        placement={placement}
        progress={progress}
        errors={errorsPage?.data ?? []}
        errorsNextHref={
          nextCursor ? `${placementHref(placement.id)}?errors=${encodeURIComponent(nextCursor)}#row-errors` : null
        }
        errorsPaged={cursor !== undefined}
        csrfToken={session.csrfToken}
        canPlace={canPlaceDebts(session.role)}
        failedRows={failedRowsOffer(row, session)}
        fileKept={row.file_deleted_at === null}
        stylesheetHref={stylesheet.stylesheetHref}
        scriptHref={script.href}
      />,
    );
  });

  router.get('/console/placements/:id/progress', async (ctx) => {
    const session = await c.session(ctx);
    if (!session) throw new ApiError('unauthenticated', 'Your session has ended. Sign in again.');
    const placement = toPlacement(await placementOf(session, ctx.params.id));
    ctx.type = 'application/json';
    ctx.body = placementProgress(placement, new Date());
  });

  router.get('/console/placements/:id/failed-rows.csv', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    // Debtor data as uploaded: only for the roles that may have it (the problems below carry none).
    requirePlacementRowsDownload(session.role);
    const placement = await placementOf(session, ctx.params.id);
    const body = await failedRowsFile({ db, store }, placement);
    if (!body) throw new ApiError('not_found', PLACEMENT_FILE_GONE);
    const extension = placement.format === 'csv' ? 'csv' : 'ndjson';
    download(
      ctx,
      `failed-rows-${placement.id}.${extension}`,
      placement.format === 'csv' ? 'text/csv' : 'application/x-ndjson',
    );
    ctx.body = body;
  });

  router.get('/console/placements/:id/problems.csv', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const placement = await placementOf(session, ctx.params.id);
    download(ctx, `problems-${placement.id}.csv`, 'text/csv');
    ctx.body = rowProblemsFile(db, placement);
  });

  // A finished check's file imported as it is: a new placement of the same stored file (the check stays as it was).
  router.post('/console/placements/:id/import', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    requirePlacing(session.role);
    const runs = c.deps.placementRuns;
    if (!runs) throw new ApiError('service_unavailable', 'Placements cannot be started on this host.');
    const checked = await placementOf(session, ctx.params.id);
    const placement = await startPlacement(
      { db, runs, transaction: (work) => db.transaction(work) },
      session.organizationId,
      newId(),
      checkedFileOf(checked),
      {
        validateOnly: false,
        recordIn: (trx, p) =>
          recordAudit(trx, actorOf(session), mode, {
            action: 'placement.uploaded',
            target: p.id,
            details: { fileName: p.fileName, format: p.format, validateOnly: false, checkedBy: checked.id },
          }),
      },
    );
    seeOther(ctx, placementHref(placement.id));
  });

  router.post('/console/placements/:id/cancel', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    requirePlacing(session.role);
    const row = await placementOf(session, ctx.params.id);
    await db.transaction(async (trx) => {
      const placement = await requestCancel(trx, session.organizationId, row.id);
      await recordAudit(trx, actorOf(session), mode, {
        action: 'placement.cancelled',
        target: placement.id,
        details: { fileName: placement.fileName },
      });
    });
    seeOther(ctx, placementHref(row.id));
  });
}

/** Whether the page offers the failed rows' file: to a role that may have it, while the file is kept. */
function failedRowsOffer(row: PlacementRow, session: StaffSession): 'offered' | 'role' | 'deleted' {
  if (!canDownloadPlacementRows(session.role)) return 'role';
  return row.file_deleted_at ? 'deleted' : 'offered';
}

function download(ctx: Context, fileName: string, type: string): void {
  ctx.set('Content-Disposition', `attachment; filename="${fileName}"`);
  ctx.type = `${type}; charset=utf-8`;
}

/**
 * The upload form, streamed: its `_csrf` field comes first (the form puts it before the file) and is checked before
 * the file is read; a file with no valid token before it is refused unread.
 */
async function readUploadForm(
  ctx: Context,
  session: StaffSession,
  store: ConsoleContext['deps']['documents'],
): Promise<{ file: AcceptedPlacementFile; validateOnly: boolean }> {
  let tokenChecked = false;
  const upload = await readMultipartUpload(
    ctx,
    placementUploadOptions({
      organizationId: session.organizationId,
      store,
      fields: ['_csrf', 'validate_only'],
      checkField: (name, value) => {
        if (name !== '_csrf') return;
        if (!csrfTokensMatch(session.csrfToken, value)) throw csrfRefused();
        tokenChecked = true;
      },
      beforeFile: () => {
        if (!tokenChecked) throw csrfRefused();
      },
    }),
  );
  if (upload.fileName === '') throw errors.invalidRequest('Choose a file to upload.');
  const { stored, format } = upload.consumed;
  if (!stored) throw new Error('a console upload was only hashed');
  return {
    file: await acceptedPlacementFile(store, { fileName: upload.fileName, stored, format }),
    validateOnly: upload.fields.validate_only === 'yes',
  };
}

function csrfRefused() {
  return new ApiError(
    'forbidden',
    'The form had expired or did not come from this site. Reload the page and try again.',
  );
}
