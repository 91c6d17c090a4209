/** The debt page's documents: each a download link (an attachment, never shown inline), its kind, size and date. */
import type { DebtDocument } from '../../../core/documents/documents';
import { documentHref } from './document-routes';
import { When } from '../shared/time';

export function Documents({ documents }: { documents: DebtDocument[] }) {
  return (
    <section class="card" aria-labelledby="documents">
      <h2 id="documents">Documents</h2>
      {documents.length === 0 ? (
        <p>None.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Documents table">
          <table>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Kind</th>
                <th scope="col">Description</th>
                <th scope="col">Size</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {documents.map((d) => (
                <tr key={d.id}>
                  <td>
                    <a href={documentHref(d.debtId, d.id)}>{d.fileName}</a>
                  </td>
                  <td>{d.kind}</td>
                  <td>{d.description ?? '–'}</td>
                  <td>{`${Math.ceil(d.size / 1024)} KiB`}</td>
                  <td>
                    <When iso={d.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** One line for an event: what changed (a `debt.updated`'s previous attributes against the debt it carries). */
