/** Search: the header box's results — every exact match in the organisation, each linked to its page. */
import type { SearchHit, SearchHitKind } from '../../../core/staff/console-search';
import { When } from '../shared/time';

const KIND_LABELS: Record<SearchHitKind, string> = {
  debt: 'Debt',
  debtor: 'Debtor',
  event: 'Event',
  delivery: 'Delivery',
};

export function SearchBody({ query, hits }: { query: string; hits: SearchHit[] }) {
  return (
    <>
      <section class="card" aria-labelledby="search-form">
        <h2 id="search-form">Find</h2>
        <form method="get" action="/console/search" role="search">
          <label for="search-query">
            A debt’s id, external account id or client reference; a debtor’s reference or email; an event’s or a
            delivery’s id; or a request id (<code>req_…</code>) from a support ticket
          </label>
          <input id="search-query" type="search" name="q" value={query} maxLength={320} />
          <button type="submit">Search</button>
        </form>
      </section>
      {query !== '' && (
        <section class="card" aria-labelledby="search-results">
          <h2 id="search-results">
            {hits.length === 0 ? 'Nothing found' : `${hits.length} found`} for “{query}”
          </h2>
          {hits.length === 0 ? (
            <p>Nothing in this organisation matches it exactly. Ids and references are matched whole.</p>
          ) : (
            <div class="table-wrap">
              <table class="collapse">
                <thead>
                  <tr>
                    <th scope="col">What</th>
                    <th scope="col">Found</th>
                    <th scope="col">Matched by</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {hits.map((hit) => (
                    <tr key={`${hit.kind}-${hit.id}-${hit.matched}`}>
                      <td data-label="What">{KIND_LABELS[hit.kind]}</td>
                      <td data-label="Found">
                        <span>
                          {hit.href ? <a href={hit.href}>{hit.label}</a> : hit.label}
                          <br />
                          <code>{hit.id}</code>
                        </span>
                      </td>
                      <td data-label="Matched by">{hit.matched}</td>
                      <td data-label="Created">
                        <When iso={hit.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </>
  );
}
