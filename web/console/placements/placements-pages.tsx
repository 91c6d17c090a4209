/**
 * The Placements pages: the upload (a file input that is also the drop target, so dragging a file onto it works
 * without JavaScript), the list of placements, and a placement's page: its validation summary, the progress bar while
 * it runs (moved by placement-progress-script.ts where JavaScript runs, by a refresh where not), cancel, and the rows'
 * problems, paged, with the downloads of the failed rows (as uploaded) and of the problems.
 */
import type { Placement, PlacementRowError } from '../../../core/placements/placements';
import { CsrfField } from '../../layout';
import { when } from '../shared/format';
import type { PlacementProgress } from './placement-progress';

export function placementHref(id: string): string {
  return `/console/placements/${id}`;
}

const STATUS_WORDS: Record<Placement['status'], string> = {
  Validating: 'Checking the rows',
  Importing: 'Importing',
  Completed: 'Completed',
  CompletedWithErrors: 'Completed with errors',
  Failed: 'Failed',
  Cancelled: 'Cancelled',
};

function UploadForm({ csrfToken }: { csrfToken: string }) {
  return (
    <section class="card" aria-labelledby="upload">
      <h2 id="upload">Upload a placement file</h2>
      <p>
        A CSV with a header row, or JSON Lines: one account a row, its columns the fields of a debt (see{' '}
        <a href="/docs/placements">placements</a>, the <a href="/docs/placements/template.csv">template</a> and the{' '}
        <a href="/docs/placements/example.csv">example file</a>). At most 50 MiB. Every row is checked before any is
        imported.
      </p>
      <form method="post" action="/console/placements" enctype="multipart/form-data">
        <CsrfField token={csrfToken} />
        <label for="placement-file">Placement file</label>
        <span class="hint" id="placement-file-hint">
          Drop the file here, or choose it.
        </span>
        <input
          class="placement-drop"
          id="placement-file"
          type="file"
          name="file"
          required
          accept=".csv,.ndjson,.jsonl,text/csv,application/x-ndjson"
          aria-describedby="placement-file-hint"
        />
        <div class="check">
          <input type="checkbox" id="placement-check-only" name="validate_only" value="yes" />
          <label for="placement-check-only">Check the file only: import nothing</label>
        </div>
        <button type="submit">Upload</button>
      </form>
    </section>
  );
}

export function PlacementsBody(props: {
  placements: Placement[];
  csrfToken: string;
  canPlace: boolean;
  stylesheetHref: string;
  olderHref: string | null;
  paged: boolean;
}) {
  const { placements } = props;
  return (
    <>
      <link rel="stylesheet" href={props.stylesheetHref} />
      {props.canPlace ? (
        <UploadForm csrfToken={props.csrfToken} />
      ) : (
        <p class="notice">Only an owner or an admin can upload a placement.</p>
      )}
      <section class="card" aria-labelledby="placements">
        <h2 id="placements">Placements, newest first</h2>
        {placements.length === 0 ? (
          <p>No placement yet.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Placements table">
            <table>
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col">Uploaded</th>
                  <th scope="col">Status</th>
                  <th scope="col">Rows</th>
                  <th scope="col">Imported</th>
                  <th scope="col">Failed</th>
                </tr>
              </thead>
              <tbody>
                {placements.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <a href={placementHref(p.id)}>{p.fileName}</a>
                      {p.validateOnly && <span class="muted"> (check only)</span>}
                    </td>
                    <td>{when(p.createdAt)}</td>
                    <td>{STATUS_WORDS[p.status]}</td>
                    <td>{p.rows}</td>
                    <td>{p.imported}</td>
                    <td>{p.failed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <nav aria-label="Pages" class="pager">
          {props.paged && <a href="/console/placements">Newest placements</a>}
          {props.olderHref && <a href={props.olderHref}>Older placements</a>}
        </nav>
      </section>
    </>
  );
}

function Progress({ placement, progress }: { placement: Placement; progress: PlacementProgress }) {
  const running = !progress.finished;
  return (
    <section
      class="card"
      id="placement-progress"
      aria-labelledby="progress"
      data-progress-url={running ? `${placementHref(placement.id)}/progress` : undefined}
    >
      <h2 id="progress">Progress</h2>
      <p class="placement-status">
        <span id="placement-status">{STATUS_WORDS[placement.status]}</span>
        {placement.validateOnly && ' (check only: nothing is imported)'}
      </p>
      <progress
        id="placement-progress-bar"
        class="placement-bar"
        aria-labelledby="progress"
        max={progress.total > 0 ? progress.total : undefined}
        value={progress.total > 0 ? progress.done : undefined}
      >
        {progress.percent === null ? '' : `${progress.percent}%`}
      </progress>
      <p class="placement-figures" aria-live="polite">
        <span id="placement-summary">{progress.summary}</span>
        <span id="placement-rate" hidden={!progress.rate}>
          {progress.rate ?? ''}
        </span>
        <span id="placement-time-left" hidden={!progress.timeLeft}>
          {progress.timeLeft ?? ''}
        </span>
      </p>
      <dl class="fields placement-counts">
        <dt>Rows in the file</dt>
        <dd id="placement-total">{progress.total > 0 ? progress.total : '–'}</dd>
        <dt>Imported</dt>
        <dd id="placement-imported">{progress.imported}</dd>
        <dt>Skipped (open already)</dt>
        <dd id="placement-skipped">{progress.skipped}</dd>
        <dt>Failed</dt>
        <dd id="placement-failed">{progress.failed}</dd>
        <dt>Uploaded</dt>
        <dd>{when(placement.createdAt)}</dd>
        {placement.completedAt && (
          <>
            <dt>Finished</dt>
            <dd>{when(placement.completedAt)}</dd>
          </>
        )}
      </dl>
      {placement.failureReason && <p class="banner">{placement.failureReason}</p>}
    </section>
  );
}

function ErrorsTable(props: {
  placementId: string;
  errors: PlacementRowError[];
  nextHref: string | null;
  paged: boolean;
}) {
  const base = placementHref(props.placementId);
  return (
    <section class="card" aria-labelledby="row-errors">
      <h2 id="row-errors">Rows not imported</h2>
      {props.errors.length === 0 && !props.paged ? (
        <p>No row has a problem.</p>
      ) : (
        <>
          <p class="actions">
            <a href={`${base}/failed-rows.csv`} download>
              Download the failed rows
            </a>
            <a href={`${base}/problems.csv`} download>
              Download the problems
            </a>
          </p>
          <p class="hint">
            The failed rows come as they were uploaded, header included: fix them and upload that file again. Rows
            already imported are skipped, never doubled.
          </p>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Row problems table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {props.errors.map((e) => (
                  <tr key={`${e.row}-${e.code}-${e.field ?? ''}`}>
                    <td>{e.row}</td>
                    <td>{e.outcome === 'failed' ? 'Failed' : 'Skipped'}</td>
                    <td class="placement-problem">
                      {e.field && (
                        <>
                          <code>{e.field}</code>:{' '}
                        </>
                      )}
                      {e.message} <span class="muted">({e.code})</span>
                      {e.existingDebtId && (
                        <>
                          {' '}
                          <a href={`/console/debts/${e.existingDebtId}`}>The open debt</a>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav aria-label="Pages" class="pager">
            {props.paged && <a href={`${base}#row-errors`}>First problems</a>}
            {props.nextHref && <a href={props.nextHref}>More problems</a>}
          </nav>
        </>
      )}
    </section>
  );
}

export function PlacementBody(props: {
  placement: Placement;
  progress: PlacementProgress;
  errors: PlacementRowError[];
  errorsNextHref: string | null;
  errorsPaged: boolean;
  csrfToken: string;
  canPlace: boolean;
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
      <Progress placement={placement} progress={progress} />
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
        <ErrorsTable
          placementId={placement.id}
          errors={props.errors}
          nextHref={props.errorsNextHref}
          paged={props.errorsPaged}
        />
      )}
    </>
  );
}
