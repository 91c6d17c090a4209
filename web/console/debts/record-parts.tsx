/**
 * What the console's record pages (debts-pages.tsx, debtors-pages.tsx) share: a list's links, filters and pager, the
 * problem banner, the debts table, a record's fields and its metadata.
 */
import { Fragment, type ComponentChildren } from 'preact';
import type { Debt } from '../../../core/debts/debts';
import { money } from '../../money-format';
import { When } from '../shared/time';

/** The list's link with `changes` applied to its current query (a cursor dropped when the filters change). */
export function listHref(path: string, query: Record<string, string>, changes: Record<string, string | undefined>) {
  const next = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, ...changes })) if (v) next.set(k, v);
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}

export function Problem({ detail }: { detail?: string }) {
  return detail ? (
    <p class="flash flash-danger" role="alert">
      {detail}
    </p>
  ) : null;
}

export function Pager(props: { path: string; query: Record<string, string>; nextCursor: string | null; what: string }) {
  const { path, query, nextCursor } = props;
  if (!nextCursor && !query.cursor) return null;
  return (
    <nav class="pager" aria-label={`Pages of ${props.what}`}>
      {query.cursor && <a href={listHref(path, query, { cursor: undefined })}>First page</a>}
      {nextCursor && <a href={listHref(path, query, { cursor: nextCursor })}>Next page</a>}
    </nav>
  );
}

export function TextFilter(props: { name: string; label: string; value: string; hint?: string }) {
  return (
    <div>
      <label for={`f-${props.name}`}>{props.label}</label>
      <input
        id={`f-${props.name}`}
        name={props.name}
        type="text"
        value={props.value}
        aria-describedby={props.hint ? `f-${props.name}-hint` : undefined}
      />
      {props.hint && (
        <span class="hint" id={`f-${props.name}-hint`}>
          {props.hint}
        </span>
      )}
    </div>
  );
}

export function DebtTable({ debts }: { debts: Debt[] }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Debts table">
      <table class="collapse">
        <thead>
          <tr>
            <th scope="col">External account</th>
            <th scope="col">Client reference</th>
            <th scope="col">Status</th>
            <th scope="col">Outstanding</th>
            <th scope="col">Original</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {debts.map((d) => (
            <tr key={d.id}>
              <td class="nowrap" data-label="External account">
                <a href={`/console/debts/${d.id}`}>{d.externalAccountId}</a>
              </td>
              <td data-label="Client reference">{d.clientReference ?? '–'}</td>
              <td data-label="Status">{d.status}</td>
              <td class="nowrap" data-label="Outstanding">
                {money(d.outstandingPrincipal, d.currency)}
              </td>
              <td class="nowrap" data-label="Original">
                {money(d.originalPrincipal, d.currency)}
              </td>
              <td class="nowrap" data-label="Created">
                <When iso={d.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Fields({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {rows.map(([term, value]) => (
        <Fragment key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

export function MetadataTable({ metadata }: { metadata: Record<string, string> }) {
  const entries = Object.entries(metadata);
  if (entries.length === 0) return <p>None.</p>;
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <td>
              <code>{k}</code>
            </td>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
