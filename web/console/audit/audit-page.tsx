/** Audit log: who did what, newest first, paged back by a cursor (owners and admins). */
import type { AuditLogEntry } from '../../../core/staff/audit-log';
import { When } from '../shared/time';

export function AuditBody(props: { entries: AuditLogEntry[]; olderHref: string | null; paged: boolean }) {
  const { entries, olderHref } = props;
  return (
    <section class="card" aria-labelledby="entries">
      <h2 id="entries">Changes, newest first</h2>
      {entries.length === 0 ? (
        <p>Nothing recorded yet.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Audit log table">
          <table>
            <thead>
              <tr>
                <th scope="col">When and who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td class="who">
                    <span class="when">
                      <When iso={e.createdAt} />
                    </span>
                    <br />
                    {e.actorEmail}
                  </td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td>{e.target ? <code>{e.target}</code> : '–'}</td>
                  <td class="audit-details">
                    <AuditDetails details={e.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Pages" class="pager">
        {props.paged && <a href="/console/audit">Newest entries</a>}
        {olderHref && <a href={olderHref}>Older entries</a>}
      </nav>
    </section>
  );
}

function AuditDetails({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <>–</>;
  return (
    <dl class="details">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}
