/** Identifiers: UUID v7 everywhere (time-ordered, index-friendly); `evt_` prefixes only where the spec asks. */
import { v7 as uuidv7 } from 'uuid';

export function newId(): string {
  return uuidv7();
}

export function newEventId(): string {
  return `evt_${uuidv7().replace(/-/g, '')}`;
}

export function isEventId(value: string): boolean {
  return /^evt_[0-9a-f]{32}$/.test(value);
}

/**
 * The one form of UUID the API accepts: 8-4-4-4-12 hex digits, any version. Not `urn:uuid:`, braces or missing
 * dashes (PostgreSQL would read those, uuid's `validate` refuses some versions and variants): one spelling per id.
 */
export const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return CANONICAL_UUID.test(value);
}
