/** Identifiers: UUID v7 everywhere (time-ordered, index-friendly); `evt_` prefixes only where the spec asks. */
import { v7 as uuidv7, validate as uuidValidate } from 'uuid';

export function newId(): string {
  return uuidv7();
}

export function newEventId(): string {
  return `evt_${uuidv7().replace(/-/g, '')}`;
}

export function isEventId(value: string): boolean {
  return /^evt_[0-9a-f]{32}$/.test(value);
}

export function isUuid(value: string): boolean {
  return uuidValidate(value);
}
