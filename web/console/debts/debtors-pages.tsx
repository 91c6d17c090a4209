/** The debtors list (filters as a GET form, cursor pages) and a debtor's page with their debts, read-only. */
import type { Debt } from '../../../core/debts/debts';
import type { Debtor } from '../../../core/debts/debtors';
import type { VerificationData } from '../../../core/debts/debtor-verification';
import { askedFactors, type Factor } from '../../../core/portal/asked-factors';
import { DebtTable, Fields, MetadataTable, Pager, Problem, TextFilter } from './record-parts';
import { When } from '../shared/time';

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
            <table class="collapse">
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
                    <td data-label="Reference id">
                      <a href={`/console/debtors/${d.id}`}>{d.referenceId}</a>
                    </td>
                    <td data-label="Name">
                      <span>
                        {d.firstName} {d.lastName}
                      </span>
                    </td>
                    <td data-label="Email">{d.email ?? '–'}</td>
                    <td data-label="Phone">{d.phone ?? '–'}</td>
                    <td data-label="Created">
                      <When iso={d.createdAt} />
                    </td>
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

const FACTOR_NAMES: Record<Factor, string> = {
  dateOfBirth: 'date of birth',
  postcode: 'postcode',
  surname: 'surname',
  accountReference: 'account reference',
};

/** What the portal's second factor asks this debtor, e.g. "Date of birth and postcode". */
function portalAsks(debtor: Debtor): string {
  const text = askedFactors(debtor.verification)
    .map((factor) => FACTOR_NAMES[factor])
    .join(' and ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export interface DebtorProps {
  debtor: Debtor;
  /** Masked (core/debts/debtor-verification.ts): staff see that the data is on file, never the whole of it. */
  verification: VerificationData;
  debts: Debt[];
  more: boolean;
}

export function DebtorBody({ debtor, verification, debts, more }: DebtorProps) {
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
            ['Date of birth', verification.dateOfBirth ? `On file (${verification.dateOfBirth})` : 'Not on file'],
            ['Postcode', verification.postcode ? `On file (${verification.postcode})` : 'Not on file'],
            ['Portal asks for', portalAsks(debtor)],
            ['Created', <When iso={debtor.createdAt} />],
            ['Updated', <When iso={debtor.updatedAt} />],
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
