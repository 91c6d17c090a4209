/** The Placements page: the upload (for those who may place debts) and the organisation's placements, newest first. */
import type { Placement } from '../../../core/placements/placements';
import { when } from '../shared/format';
import { placementHref } from './placement-href';
import { STATUS_WORDS } from './placement-status-words';
import { UploadForm } from './upload-form';

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
