/**
 * A placement's rows not imported, paged, with the downloads: the problems (no debtor data: row, column, code, words)
 * for every role, the failed rows as uploaded (debtor data) for the roles that may have them, while the file is kept.
 */
import { PLACEMENT_FILE_RETENTION_DAYS } from '../../../core/placements/file-retention';
import type { PlacementRowError } from '../../../core/placements/placements';
import { placementHref } from './placement-href';

/** The failed rows' file: offered; not for this role; or deleted (its retention ended). */
export type FailedRowsOffer = 'offered' | 'role' | 'deleted';

const FAILED_ROWS_HINT: Record<FailedRowsOffer, string> = {
  offered:
    'The failed rows come as they were uploaded, header included: fix them and upload that file again. Rows ' +
    'already imported are skipped, never doubled.',
  role: 'The failed rows as uploaded hold the debtors’ data: an owner or an admin can download them.',
  deleted: `The file is no longer kept (${PLACEMENT_FILE_RETENTION_DAYS} days after the placement finished), so its failed rows cannot be downloaded; the problems stay.`,
};

export function RowErrorsSection(props: {
  placementId: string;
  errors: PlacementRowError[];
  nextHref: string | null;
  paged: boolean;
  failedRows: FailedRowsOffer;
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
            {props.failedRows === 'offered' && (
              <a href={`${base}/failed-rows.csv`} download>
                Download the failed rows
              </a>
            )}
            <a href={`${base}/problems.csv`} download>
              Download the problems
            </a>
          </p>
          <p class="hint">{FAILED_ROWS_HINT[props.failedRows]}</p>
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
