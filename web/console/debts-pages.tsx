/**
 * Debts and debtors, read-only: the lists with the API's filters as URL query parameters (a GET form, so a filtered
 * list is a link) and cursor pages; a debt's page (its fields, metadata, dispute, plan, transactions, documents and a
 * timeline of its events) with the recall's confirmation; a debtor's page with their debts.
 */
import { Fragment, type ComponentChildren } from 'preact';
import { DEBT_STATUSES, TERMINAL_STATUSES } from '../../core/debts/debt-status';
import { minorUnits } from '../../core/debts/currencies';
import type { Debtor } from '../../core/debts/debtors';
import type { Debt } from '../../core/debts/debts';
import type { Transaction } from '../../core/debts/transactions';
import type { DebtDocument } from '../../core/documents/documents';
import type { DebtEvent } from '../../core/staff/console-debts';
import { CsrfField } from '../layout';
import type { DebtorCircumstance } from '../../core/portal/circumstances';
import { DebtCircumstances } from './debt-circumstances';
import { documentHref } from './document-routes';
import { PortalLinkSection, type PortalLinkSectionProps } from './portal-link-section';

/** `2026-12-03T09:15:00.000Z` as `2026-12-03 09:15 UTC`. */
export function when(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '–';
}

/** One formatter per number of minor-unit digits: `toLocaleString` would build a new one on every call. */
const amountFormats = new Map<number, Intl.NumberFormat>();

/** `1250.5` AUD as `1,250.50 AUD`: the currency's own minor-unit digits. */
export function money(amount: number, currency: string): string {
  const digits = minorUnits(currency);
  let format = amountFormats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    amountFormats.set(digits, format);
  }
  return `${format.format(amount)} ${currency}`;
}

/** The list's link with `changes` applied to its current query (a cursor dropped when the filters change). */
export function listHref(path: string, query: Record<string, string>, changes: Record<string, string | undefined>) {
  const next = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, ...changes })) if (v) next.set(k, v);
  const text = next.toString();
  return text ? `${path}?${text}` : path;
}

function Problem({ detail }: { detail?: string }) {
  return detail ? (
    <p class="banner" role="alert">
      {detail}
    </p>
  ) : null;
}

function Pager(props: { path: string; query: Record<string, string>; nextCursor: string | null; what: string }) {
  const { path, query, nextCursor } = props;
  if (!nextCursor && !query.cursor) return null;
  return (
    <nav class="pager" aria-label={`Pages of ${props.what}`}>
      {query.cursor && <a href={listHref(path, query, { cursor: undefined })}>First page</a>}
      {nextCursor && <a href={listHref(path, query, { cursor: nextCursor })}>Next page</a>}
    </nav>
  );
}

function TextFilter(props: { name: string; label: string; value: string; hint?: string }) {
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

export interface DebtsListProps {
  debts: Debt[];
  nextCursor: string | null;
  /** The query as given (filters and cursor), to fill the form and build the pages' links. */
  query: Record<string, string>;
  problem?: string;
}

export function DebtsBody(props: DebtsListProps) {
  const q = props.query;
  const dateHint = 'YYYY-MM-DD (UTC) or a date-time';
  return (
    <>
      <section class="card" aria-labelledby="filters">
        <h2 id="filters">Filters</h2>
        <form method="get" action="/console/debts">
          <div class="filters">
            <div>
              <label for="f-status">Status</label>
              <select id="f-status" name="status">
                <option value="">Any</option>
                {DEBT_STATUSES.map((s) => (
                  <option key={s} value={s} selected={q.status === s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
            <TextFilter name="externalAccountId" label="External account id" value={q.externalAccountId ?? ''} />
            <TextFilter name="clientReference" label="Client reference" value={q.clientReference ?? ''} />
            <TextFilter name="createdAfter" label="Created after" value={q.createdAfter ?? ''} hint={dateHint} />
            <TextFilter name="createdBefore" label="Created before" value={q.createdBefore ?? ''} hint={dateHint} />
            <TextFilter name="metadataKey" label="Metadata key" value={q.metadataKey ?? ''} />
            <TextFilter name="metadataValue" label="Metadata value" value={q.metadataValue ?? ''} />
            {q.debtorId && <input type="hidden" name="debtorId" value={q.debtorId} />}
          </div>
          <div class="actions">
            <button type="submit">Apply filters</button>
            <a href="/console/debts">Clear filters</a>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="list">
        <h2 id="list">{q.debtorId ? 'This debtor’s debts' : 'Debts, newest first'}</h2>
        <Problem detail={props.problem} />
        {props.debts.length === 0 ? <p>No debts match.</p> : <DebtTable debts={props.debts} />}
        <Pager path="/console/debts" query={q} nextCursor={props.nextCursor} what="debts" />
      </section>
    </>
  );
}

function DebtTable({ debts }: { debts: Debt[] }) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Debts table">
      <table>
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
              <td class="nowrap">
                <a href={`/console/debts/${d.id}`}>{d.externalAccountId}</a>
              </td>
              <td>{d.clientReference ?? '–'}</td>
              <td>{d.status}</td>
              <td class="nowrap">{money(d.outstandingPrincipal, d.currency)}</td>
              <td class="nowrap">{money(d.originalPrincipal, d.currency)}</td>
              <td class="nowrap">{when(d.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Fields({ rows }: { rows: [string, ComponentChildren][] }) {
  return (
    <dl class="fields">
      {rows.map(([term, value]) => (
        <Fragment key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

function MetadataTable({ metadata }: { metadata: Record<string, string> }) {
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

export interface DebtPageProps {
  debt: Debt;
  debtor: Debtor | undefined;
  transactions: Transaction[];
  moreTransactions: boolean;
  documents: DebtDocument[];
  events: DebtEvent[];
  canRecall: boolean;
  recalled?: boolean;
  circumstances?: DebtorCircumstance[];
  /** The sandbox host's simulations (simulation-panel.tsx), under the debt's fields. */
  sandboxActions?: ComponentChildren;
  portalLink?: PortalLinkSectionProps;
}

export function DebtBody(props: DebtPageProps) {
  const { debt, debtor } = props;
  const open = !TERMINAL_STATUSES.includes(debt.status);
  return (
    <>
      {props.recalled && (
        <p class="notice" role="status">
          The debt is recalled: its status is now {debt.status}.
        </p>
      )}
      <section class="card" aria-labelledby="debt">
        <h2 id="debt">
          {debt.externalAccountId} <span class="status">{debt.status}</span>
        </h2>
        <Fields
          rows={[
            ['Debt id', <code>{debt.id}</code>],
            ['Status', debt.status],
            ['External account id', debt.externalAccountId],
            ['Client reference', debt.clientReference ?? '–'],
            [
              'Debtor',
              debtor ? (
                <a href={`/console/debtors/${debtor.id}`}>
                  {debtor.firstName} {debtor.lastName} ({debtor.referenceId})
                </a>
              ) : (
                <code>{debt.debtorId}</code>
              ),
            ],
            ['Original principal', money(debt.originalPrincipal, debt.currency)],
            ['Outstanding principal', money(debt.outstandingPrincipal, debt.currency)],
            ['Dispute reason', debt.disputeReason ?? '–'],
            ['Dispute outcome', debt.disputeOutcome ?? '–'],
            ['Dispute resolved', when(debt.disputeResolvedAt)],
            ['Created', when(debt.createdAt)],
            ['Updated', when(debt.updatedAt)],
          ]}
        />
        {props.canRecall && open && (
          <p>
            <a href={`/console/debts/${debt.id}/recall`}>Recall this debt</a>
          </p>
        )}
        {!props.canRecall && open && <p class="muted">Only an owner or an admin can recall a debt.</p>}
      </section>
      {props.sandboxActions}
      <section class="card" aria-labelledby="metadata">
        <h2 id="metadata">Metadata</h2>
        <MetadataTable metadata={debt.metadata} />
      </section>
      <section class="card" aria-labelledby="plan">
        <h2 id="plan">Plan</h2>
        {debt.plan ? (
          <Fields
            rows={[
              ['Status', debt.plan.status],
              ['Instalment', money(debt.plan.instalmentAmount, debt.currency)],
              ['Frequency', debt.plan.frequency],
              ['Instalments paid', `${debt.plan.instalmentsPaid} of ${debt.plan.instalmentCount}`],
              ['Next due', debt.plan.nextDueDate ?? '–'],
            ]}
          />
        ) : (
          <p>No plan.</p>
        )}
      </section>
      {props.circumstances && <DebtCircumstances circumstances={props.circumstances} />}
      {props.portalLink && <PortalLinkSection {...props.portalLink} />}
      <Transactions transactions={props.transactions} more={props.moreTransactions} />
      <Documents documents={props.documents} />
      <Timeline events={props.events} />
    </>
  );
}

function Transactions({ transactions, more }: { transactions: Transaction[]; more: boolean }) {
  return (
    <section class="card" aria-labelledby="transactions">
      <h2 id="transactions">Transactions</h2>
      {transactions.length === 0 ? (
        <p>None.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Transactions table">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Type</th>
                <th scope="col">Direction</th>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col">Processor reference</th>
              </tr>
            </thead>
            <tbody>
              {transactions.map((t) => (
                <tr key={t.id}>
                  <td>{when(t.createdAt)}</td>
                  <td>{t.type}</td>
                  <td>{t.direction}</td>
                  <td>{t.status}</td>
                  <td>{money(t.amount, t.currency)}</td>
                  <td>{t.processorReference ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {more && <p class="muted">Showing the newest {transactions.length}; the API lists them all.</p>}
    </section>
  );
}

function Documents({ documents }: { documents: DebtDocument[] }) {
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
                  <td>{when(d.createdAt)}</td>
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
export function eventSummary(event: DebtEvent): string {
  const debt = (event.data.debt ?? {}) as Record<string, unknown>;
  const show = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : v == null
        ? '–'
        : '(changed)';
  if (event.type === 'debt.updated') {
    const previous = (event.data.previousAttributes ?? {}) as Record<string, unknown>;
    const changes = Object.entries(previous).map(([k, v]) =>
      typeof v === 'object' && v !== null ? `${k} changed` : `${k}: ${show(v)} → ${show(debt[k])}`,
    );
    return changes.length > 0 ? changes.join('; ') : 'Updated';
  }
  const payment = event.data.payment as { amount?: unknown; currency?: unknown } | undefined;
  const parts = [`status ${show(debt.status)}`];
  if (payment?.amount !== undefined) parts.unshift(`payment of ${show(payment.amount)} ${show(payment.currency)}`);
  if (event.type === 'debt.disputed' && debt.disputeReason) parts.push(`reason: ${show(debt.disputeReason)}`);
  return parts.join('; ');
}

function Timeline({ events }: { events: DebtEvent[] }) {
  return (
    <section class="card" aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      {events.length === 0 ? (
        <p>No events yet.</p>
      ) : (
        <ol class="timeline">
          {events.map((e) => (
            <li key={e.id}>
              <strong>{e.type}</strong> <span class="muted">{when(e.createdAt)}</span>
              <br />
              {eventSummary(e)}
              <details>
                <summary>
                  Payload of <code>{e.id}</code>
                  {e.requestId ? ` (request ${e.requestId})` : ''}
                </summary>
                <pre>{JSON.stringify({ id: e.id, type: e.type, createdAt: e.createdAt, data: e.data }, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function RecallConfirmBody({ debt, csrfToken }: { debt: Debt; csrfToken: string }) {
  return (
    <section class="card">
      <p>
        Recall the debt <strong>{debt.externalAccountId}</strong> ({money(debt.outstandingPrincipal, debt.currency)}{' '}
        outstanding, now {debt.status})? Its status becomes Closed, a running plan and its timers are cancelled, and
        your webhook receives <code>debt.updated</code>. This cannot be undone.
      </p>
      <form method="post" action={`/console/debts/${debt.id}/recall`}>
        <CsrfField token={csrfToken} />
        <button type="submit" class="danger">
          Recall the debt
        </button>{' '}
        <a href={`/console/debts/${debt.id}`}>Cancel</a>
      </form>
    </section>
  );
}

export interface DebtorsListProps {
  debtors: Debtor[];
  nextCursor: string | null;
  query: Record<string, string>;
  problem?: string;
}

export function DebtorsBody(props: DebtorsListProps) {
  const q = props.query;
  return (
    <>
      <section class="card" aria-labelledby="filters">
        <h2 id="filters">Filters</h2>
        <form method="get" action="/console/debtors">
          <div class="filters">
            <TextFilter name="referenceId" label="Reference id" value={q.referenceId ?? ''} />
            <TextFilter name="email" label="Email" value={q.email ?? ''} />
          </div>
          <div class="actions">
            <button type="submit">Apply filters</button>
            <a href="/console/debtors">Clear filters</a>
          </div>
        </form>
      </section>
      <section class="card" aria-labelledby="list">
        <h2 id="list">Debtors, newest first</h2>
        <Problem detail={props.problem} />
        {props.debtors.length === 0 ? (
          <p>No debtors match.</p>
        ) : (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Debtors table">
            <table>
              <thead>
                <tr>
                  <th scope="col">Reference id</th>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Phone</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {props.debtors.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <a href={`/console/debtors/${d.id}`}>{d.referenceId}</a>
                    </td>
                    <td>
                      {d.firstName} {d.lastName}
                    </td>
                    <td>{d.email ?? '–'}</td>
                    <td>{d.phone ?? '–'}</td>
                    <td>{when(d.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager path="/console/debtors" query={q} nextCursor={props.nextCursor} what="debtors" />
      </section>
    </>
  );
}

export function DebtorBody({ debtor, debts, more }: { debtor: Debtor; debts: Debt[]; more: boolean }) {
  return (
    <>
      <section class="card" aria-labelledby="debtor">
        <h2 id="debtor">
          {debtor.firstName} {debtor.lastName}
        </h2>
        <Fields
          rows={[
            ['Debtor id', <code>{debtor.id}</code>],
            ['Reference id', debtor.referenceId],
            ['Email', debtor.email ?? '–'],
            ['Phone', debtor.phone ?? '–'],
            ['Created', when(debtor.createdAt)],
            ['Updated', when(debtor.updatedAt)],
          ]}
        />
      </section>
      <section class="card" aria-labelledby="metadata">
        <h2 id="metadata">Metadata</h2>
        <MetadataTable metadata={debtor.metadata} />
      </section>
      <section class="card" aria-labelledby="debts">
        <h2 id="debts">Debts</h2>
        {debts.length === 0 ? <p>None.</p> : <DebtTable debts={debts} />}
        {more && (
          <p>
            <a href={`/console/debts?debtorId=${debtor.id}`}>All of this debtor’s debts</a>
          </p>
        )}
      </section>
    </>
  );
}
