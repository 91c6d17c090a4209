/**
 * `metadata` on debts and debtors: the client's own string keys and values, with Stripe's limits
 * (50 keys, keys of at most 40 characters, values of at most 500). Stored as `json` text written by JSON.stringify,
 * so the lists PostgreSQL writes send the same bytes as the records Node shapes; filtered by one pair
 * (`metadata[key]=value`) through `metadata_pairs`.
 */
import { errors } from '../platform/errors';
import type { SqlPart } from '../platform/sql-part';

export type Metadata = Record<string, string>;
/** A PATCH's metadata: each key sent is set, `""` or null removes it; `metadata: null` removes every key. */
export type MetadataPatch = Record<string, string | null> | null;

export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/** The stored text of `metadata` (absent is `{}`), for an insert or update. */
export function metadataText(metadata: Metadata | undefined): string {
  return JSON.stringify(metadata ?? {});
}

/** The metadata a create request sets: keys with an empty value are not stored (as in a PATCH, "" means none). */
export function newMetadata(input: Record<string, string | null> | undefined): Metadata {
  return withinLimits(applyMetadataPatch({}, input ?? {}));
}

function applyMetadataPatch(current: Metadata, patch: MetadataPatch): Metadata {
  if (patch === null) return {};
  const next: Metadata = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === '') delete next[key];
    else next[key] = value;
  }
  return next;
}

function withinLimits(metadata: Metadata): Metadata {
  const count = Object.keys(metadata).length;
  if (count > METADATA_LIMITS.keys) {
    throw errors.invalidRequest(
      `metadata holds at most ${METADATA_LIMITS.keys} keys; this change would leave ${count}.`,
      [{ path: 'body.metadata', message: `has more than ${METADATA_LIMITS.keys} keys` }],
    );
  }
  return metadata;
}

/** The record's metadata after a PATCH; undefined when the PATCH changes nothing (keys set to their own values). */
export function patchedMetadata(current: Metadata, patch: MetadataPatch | undefined): Metadata | undefined {
  if (patch === undefined) return undefined;
  const next = withinLimits(applyMetadataPatch(current, patch));
  return sameMetadata(current, next) ? undefined : next;
}

function sameMetadata(a: Metadata, b: Metadata): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

/**
 * `metadata[key]=value` of a list: the conditions on `metadata_pairs` (one row per pair, kept by triggers,
 * migration 20261202140000) whose index matches the filter with the list's order, so the list is walked from there.
 */
export function metadataPairConditions(kind: 'debt' | 'debtor', organizationId: string, filter: Metadata): SqlPart[] {
  const [[key, value]] = Object.entries(filter) as [[string, string]];
  return [
    {
      sql: 'metadata_pairs.organization_id = ? and metadata_pairs.record_kind = ? and metadata_pairs.key = ? and metadata_pairs.value = ?',
      bindings: [organizationId, kind, key, value],
    },
  ];
}
