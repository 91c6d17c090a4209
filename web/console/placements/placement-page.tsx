/**
 * A placement's page: its validation summary and progress (moved by placement-progress-script.ts where JavaScript
 * runs, by a refresh where not), cancel, "Import this file" after a finished check, and the rows' problems.
 */
import type { Placement, PlacementRowError } from '../../../core/placements/placements';
import { CsrfField } from '../../layout';
import type { PlacementProgress } from './placement-progress';
import { placementHref } from './placement-href';
import { ProgressSection } from './progress-section';
import { RowErrorsSection, type FailedRowsOffer } from './row-errors-section';

export function PlacementBody(props: {
  placement: Placement;
  progress: PlacementProgress;
  errors: PlacementRowError[];
  errorsNextHref: string | null;
  errorsPaged: boolean;
  csrfToken: string;
  canPlace: boolean;
  failedRows: FailedRowsOffer;
  /** Whether the placement's file is still stored (a finished check's file can be imported only then). */
  fileKept: boolean;
  stylesheetHref: string;
  scriptHref: string;
}) {
  const { placement, progress } = props;
  const running = !progress.finished;
  return (
    <>
      <link rel="stylesheet" href={props.stylesheetHref} />
      {running && (
        <>
          <noscript>
            <meta http-equiv="refresh" content="2" />
          </noscript>
          <script src={props.scriptHref} defer />
        </>
      )}
      <p>
        <a href="/console/placements">All placements</a>
      </p>
      <p class="muted">
        {placement.format === 'csv' ? 'CSV' : 'JSON Lines'} · <code>{placement.id}</code>
      </p>
      <ProgressSection placement={placement} progress={progress} />
      {running && props.canPlace && (
        <form method="post" action={`${placementHref(placement.id)}/cancel`}>
          <CsrfField token={props.csrfToken} />
          <p class="hint">Cancelling stops the import before its next chunk; what is imported stays.</p>
          <button type="submit" class="danger">
            Cancel this placement
          </button>
        </form>
      )}
      {placement.validateOnly &&
        props.canPlace &&
        props.fileKept &&
        (placement.status === 'Completed' || placement.status === 'CompletedWithErrors') && (
          <form method="post" action={`${placementHref(placement.id)}/import`} class="card">
            <CsrfField token={props.csrfToken} />
            <h2>Import this file</h2>
            <p>
              The check is done:{' '}
              {progress.failed === 0
                ? 'every row can be imported'
                : `${progress.failed} of ${progress.total} rows would fail`}
              . Importing raises the good rows as debts; the rows with problems are listed again, to fix.
            </p>
            <button type="submit">Import this file</button>
          </form>
        )}
      {(placement.failed > 0 || placement.skipped > 0 || !running) && (
        <RowErrorsSection
          placementId={placement.id}
          errors={props.errors}
          nextHref={props.errorsNextHref}
          paged={props.errorsPaged}
          failedRows={props.failedRows}
        />
      )}
    </>
  );
}
