/**
 * Audit log: who did what, each entry a sentence, newest first, filtered by actor and action (a GET form, so each
 * filter is in the URL), paged back by a cursor (owners and admins).
 */
import { AUDIT_ACTIONS, type AuditAction, type AuditLogEntry } from '../../../core/staff/audit-log';
import { When } from '../shared/time';
import { AuditSentence, type AuditNames } from './audit-sentence';

export interface AuditQuery {
  actor: string;
  action: AuditAction | '';
}

export function auditHref(query: AuditQuery, cursor?: string): string {
  const params = new URLSearchParams();
  if (query.actor) params.set('actor', query.actor);
  if (query.action) params.set('action', query.action);
  if (cursor) params.set('cursor', cursor);
  const search = params.toString();
  return search ? `/console/audit?${search}` : '/console/audit';
}

export function AuditBody(props: {
  entries: AuditLogEntry[];
  names: AuditNames;
  actors: string[];
  query: AuditQuery;
  nextCursor: string | null;
  paged: boolean;
}) {
  const { entries, query } = props;
  return (
    <>
      <section class="card" aria-labelledby="filter">
        <h2 id="filter">Filter</h2>
        <form method="get" action="/console/audit" class="row-filters">
          <div>
            <label for="actor">Who</label>
            <select id="actor" name="actor">
              <option value="" selected={query.actor === ''}>
                Anyone
              </option>
              {props.actors.map((email) => (
                <option key={email} value={email} selected={query.actor === email}>
                  {email}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="action">Action</label>
            <select id="action" name="action">
              <option value="" selected={query.action === ''}>
                Any
              </option>
              {AUDIT_ACTIONS.map((action) => (
                <option key={action} value={action} selected={query.action === action}>
                  {action}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">Filter</button>
        </form>
      </section>
      <section class="card" aria-labelledby="entries">
        <h2 id="entries">Changes, newest first</h2>
        {entries.length === 0 ? (
          <p>{query.actor || query.action ? 'No entry matches.' : 'Nothing recorded yet.'}</p>
        ) : (
          <ol class="audit-entries">
            {entries.map((e) => (
              <li key={e.id}>
                <p class="audit-sentence">
                  <AuditSentence entry={e} names={props.names} />
                </p>
                <p class="muted audit-meta">
                  <When iso={e.createdAt} /> · <code>{e.action}</code>
                </p>
              </li>
            ))}
          </ol>
        )}
        <nav aria-label="Pages" class="pager">
          {props.paged && <a href={auditHref(query)}>Newest entries</a>}
          {props.nextCursor && <a href={auditHref(query, props.nextCursor)}>Older entries</a>}
        </nav>
      </section>
    </>
  );
}
