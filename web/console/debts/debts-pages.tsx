/**
 * Debts, read-only: the list with the API's filters as URL query parameters (a GET form, so a filtered list is a
 * link) and cursor pages; a debt's page (its fields, metadata, dispute, plan, transactions, documents and a timeline
 * of its events) with the recall's confirmation. Debtors are debtors-pages.tsx; the parts both use, record-parts.tsx.
 */
import type { ComponentChildren } from 'preact';
import { DEBT_STATUSES, TERMINAL_STATUSES } from '../../../core/debts/debt-status';
import type { Debtor } from '../../../core/debts/debtors';
import type { Debt } from '../../../core/debts/debts';
import type { Transaction } from '../../../core/debts/transactions';
import type { DebtDocument } from '../../../core/documents/documents';
import type { DebtEvent } from '../../../core/staff/console-debts';
import { CsrfField } from '../../layout';
import type { DebtorCircumstance } from '../../../core/portal/circumstances';
import { DebtCircumstances } from './debt-circumstances';
import { Documents } from './documents-section';
import { PortalLinkSection, type PortalLinkSectionProps } from './portal-link-section';
import type { Refund } from '../../../core/payments/refunds';
import { RefundsSection } from './refunds-section';
import { money } from '../../money-format';
import { DebtTable, Fields, MetadataTable, Pager, Problem, TextFilter } from './record-parts';
import { When } from '../shared/time';

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

export interface DebtPageProps {
  debt: Debt;
  debtor: Debtor | undefined;
  transactions: Transaction[];
  moreTransactions: boolean;
  /** Payments the debt refused, refunded (shown only when there are some). */
  refunds?: Refund[];
  documents: DebtDocument[];
  events: DebtEvent[];
  canRecall: boolean;
  recalled?: boolean;
  circumstances?: DebtorCircumstance[];
  /** The sandbox host's simulations (sandbox/simulation-panel.tsx), under the debt's fields. */
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
          {debt.externalAccountId} <span class="badge">{debt.status}</span>
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
            ['Dispute resolved', <When iso={debt.disputeResolvedAt} />],
            ['Created', <When iso={debt.createdAt} />],
            ['Updated', <When iso={debt.updatedAt} />],
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
      <RefundsSection refunds={props.refunds ?? []} />
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
          <table class="collapse">
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
                  <td data-label="Created">
                    <When iso={t.createdAt} />
                  </td>
                  <td data-label="Type">{t.type}</td>
                  <td data-label="Direction">{t.direction}</td>
                  <td data-label="Status">{t.status}</td>
                  <td data-label="Amount">{money(t.amount, t.currency)}</td>
                  <td data-label="Processor reference">{t.processorReference ?? '–'}</td>
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
  const refund = event.data.refund as { amount?: unknown; currency?: unknown } | undefined;
  const parts = [`status ${show(debt.status)}`];
  if (payment?.amount !== undefined) parts.unshift(`payment of ${show(payment.amount)} ${show(payment.currency)}`);
  if (refund?.amount !== undefined) parts.unshift(`refund of ${show(refund.amount)} ${show(refund.currency)}`);
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
              <strong>{e.type}</strong>{' '}
              <span class="muted">
                <When iso={e.createdAt} />
              </span>
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
