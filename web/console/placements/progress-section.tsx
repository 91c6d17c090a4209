/**
 * A placement's progress: its status, the bar (rows done of the file's rows), rate and time left, and its counts. While
 * it runs, `data-progress-url` lets placement-progress-script.ts move it without reloading.
 */
import type { Placement } from '../../../core/placements/placements';
import { when } from '../shared/format';
import type { PlacementProgress } from './placement-progress';
import { placementHref } from './placement-href';
import { STATUS_WORDS } from './placement-status-words';

export function ProgressSection({ placement, progress }: { placement: Placement; progress: PlacementProgress }) {
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
      <dl class="facts placement-counts">
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
      {placement.failureReason && <p class="flash flash-danger">{placement.failureReason}</p>}
    </section>
  );
}
