/**
 * The claim a fair starter (fair-starter.ts) makes on a table of owed workflow starts: each organisation's oldest
 * owed rows that no live lease holds, up to a number per organisation, leased in the same statement.
 *
 * The organisations are found by a skip scan of the table's partial index on (organization_id, created_at) over the
 * owed rows — one index probe per organisation, however many rows one of them owes — and each one's oldest rows by
 * the same index. Two loops claiming at once cannot take the same row: the UPDATE re-checks the lease on each row it
 * locks, and the second finds it taken.
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
  /** The columns the claim returns (unqualified; `organization_id` and `created_at` among them). */
  columns: readonly string[];
}

export async function claimOwedStarts<Row extends { organization_id: string; created_at: Date }>(
  db: Db,
  spec: OwedStartTable,
  mode: Mode,
  perOrganization: number,
  skip: string[],
  leaseMs: number,
): Promise<Row[]> {
  const { table, key, owed, leaseColumn } = spec;
  const free = `(t.${leaseColumn} is null or t.${leaseColumn} < now())`;
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
          order by t.created_at limit ?
       ) c
       where orgs.id <> all(?::uuid[])
     )
     update ${table} t set ${leaseColumn} = now() + ? * interval '1 millisecond'
       from picked
      where t.${key} = picked.picked_key and ${owed('t')} and ${free}
     returning ${spec.columns.map((c) => `t.${c}`).join(', ')}`,
    [mode, perOrganization, skip, leaseMs],
  );
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
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
