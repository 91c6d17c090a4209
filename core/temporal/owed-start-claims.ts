/**
 * The claim a fair starter (fair-starter.ts) makes on a table of owed workflow starts: each organisation's next
 * owed rows (not bulk first, then oldest) that no live lease holds, up to a number per organisation, leased in the
 * same statement.
 *
 * The organisations are found by a skip scan of the table's partial index on (organization_id, bulk, created_at) over
 * the owed rows — one index probe per organisation, however many rows one of them owes — and each one's next rows by
 * the same index: its rows that are not bulk work first (a placement's, core/events/bulk-work.ts), then the oldest. Two
 * loops claiming at once cannot take the same row: the UPDATE re-checks the lease on each row it locks, and the second
 * finds it taken.
 *
 * The UPDATE takes the picked keys as one array, made once, and finds them by primary key. Joined to the pick instead,
 * a plan made while the statistics said nothing was owed (a burst since the last analyse) re-ran the pick for every
 * owed row: 10,000 owed deliveries kept one claim 31 s on CPU (test/integration/owed-start-claim-plan.test.ts). Its
 * re-check that each row is still owed and free is written `(…) is true`, which the planner cannot match to the owed
 * rows' partial index: with such statistics that index looks empty, and the UPDATE walked all of it instead of
 * looking its few keys up by primary key.
 *
 * Admission by progress (a table with `inFlight`): an organisation's rows that were claimed or started and have not
 * made their first step yet are counted (at most the bound, by a partial index), and the claim takes only what keeps
 * the organisation under the bound. A burst then queues in PostgreSQL rather than in Temporal's per-shard and per-queue
 * backlogs, where every other tenant's new work would wait behind it: the server holds no more of one tenant's
 * unstarted work than it clears in a moment.
 */
import type { Db } from '../platform/db';
import type { Mode } from '../platform/mode';

export interface OwedStartTable {
  table: string;
  /** The primary key column. */
  key: string;
  /** SQL that holds for an owed start, over the table under the alias given; the partial index's predicate. */
  owed: (alias: string) => string;
  /** The timestamptz column holding the lease. */
  leaseColumn: string;
  /** The columns the claim returns (unqualified; `organization_id`, `created_at` and `bulk` among them). */
  columns: readonly string[];
  /**
   * SQL that holds, over the table under the alias given, for a row claimed or started that has not made its first
   * step yet (covered by a partial index led by `organization_id`): what `inFlightLimit` bounds per organisation.
   */
  inFlight?: (alias: string) => string;
}

/**
 * SQL for the room an organisation has under admission by progress: the bound less its rows in flight, counted no
 * further than the bound, and 0 at or over it. Takes the bound twice as bindings; `organizationId` is the SQL that
 * names the organisation. The claim below and a start made outside the fair starter (the delivery reconciler's) both
 * read it, so they agree on what the bound lets in.
 */
export function roomUnderBound(
  table: string,
  inFlight: NonNullable<OwedStartTable['inFlight']>,
  organizationId: string,
): string {
  return `greatest(0, ?::int - (select count(*) from (select 1 from ${table} f
    where f.organization_id = ${organizationId} and ${inFlight('f')} limit ?::int) busy))`;
}

export async function claimOwedStarts<Row extends { organization_id: string; created_at: Date; bulk: boolean }>(
  db: Db,
  spec: OwedStartTable,
  mode: Mode,
  perOrganization: number,
  skip: string[],
  leaseMs: number,
  /** With `spec.inFlight`: how many of an organisation's rows may be in flight at once, these claims included. */
  inFlightLimit?: number,
): Promise<Row[]> {
  const { table, key, owed, leaseColumn, inFlight } = spec;
  const free = `(t.${leaseColumn} is null or t.${leaseColumn} < now())`;
  const bounded = inFlight !== undefined && inFlightLimit !== undefined;
  const limit = bounded ? `least(?::int, ${roomUnderBound(table, inFlight, 'orgs.id')})` : '?::int';
  const limitBindings = bounded ? [perOrganization, inFlightLimit, inFlightLimit] : [perOrganization];
  const { rows } = await db.raw<{ rows: Row[] }>(
    `with recursive orgs(id) as (
       (select s.organization_id from ${table} s where ${owed('s')} order by s.organization_id limit 1)
       union all
       select (select s.organization_id from ${table} s where ${owed('s')} and s.organization_id > orgs.id
                order by s.organization_id limit 1)
         from orgs where orgs.id is not null
     ),
     picked as (
       select c.${key} as picked_key from orgs
       join organizations o on o.id = orgs.id and o.mode = ?
       cross join lateral (
         select t.${key} from ${table} t
          where t.organization_id = orgs.id and ${owed('t')} and ${free}
          order by t.bulk, t.created_at limit ${limit}
       ) c
       where orgs.id <> all(?::uuid[])
     )
     update ${table} t set ${leaseColumn} = now() + ? * interval '1 millisecond'
      where t.${key} = any(array(select picked_key from picked)) and (${owed('t')} and ${free}) is true
     returning ${spec.columns.map((c) => `t.${c}`).join(', ')}`,
    [mode, ...limitBindings, skip, leaseMs],
  );
  return rows.sort((a, b) => Number(a.bulk) - Number(b.bulk) || a.created_at.getTime() - b.created_at.getTime());
}

/**
 * Shortens the claims on these rows (by their keys) to `afterMs` from now: 0 gives them back at once, a short pause
 * keeps a failed start from being tried again at once.
 */
export async function shortenOwedClaims(db: Db, spec: OwedStartTable, keys: string[], afterMs: number): Promise<void> {
  await db.raw(
    `update ${spec.table} set ${spec.leaseColumn} = now() + ? * interval '1 millisecond' where ${spec.key} = any(?::uuid[])`,
    [afterMs, keys],
  );
}
