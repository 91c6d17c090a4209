/** The API key scopes of spec §5. A scope ending in `:write` is refused to read-only keys. */
export const SCOPES = [
  'debts:read',
  'debts:write',
  'debts:documents:write',
  'debtors:read',
  'debtors:write',
  'payments:read',
  'transactions:read',
  'branding:read',
  'branding:write',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isWriteScope(scope: Scope): boolean {
  return scope.endsWith(':write');
}
