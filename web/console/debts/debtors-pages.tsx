/** The debtors list (filters as a GET form, cursor pages) and a debtor's page with their debts, read-only. */
import type { Debt } from '../../../core/debts/debts';
import type { Debtor } from '../../../core/debts/debtors';
import { DebtTable, Fields, MetadataTable, Pager, Problem, TextFilter } from './record-parts';
import { whenToMinute } from '../shared/format';

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
                    <td>{whenToMinute(d.createdAt)}</td>
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
            ['Created', whenToMinute(debtor.createdAt)],
            ['Updated', whenToMinute(debtor.updatedAt)],
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
