/**
 * What each console role may do: owner everything; admin keys, webhooks, branding, retries, recall;
 * developer test keys, webhooks, simulations and resets on the sandbox host, reads in production; viewer reads. Pages
 * ask these functions; they never decide on their own.
 */
import type { Mode } from '../platform/config';
import { ApiError } from '../platform/errors';
import type { StaffRole } from './staff-users';

export function canManageKeys(role: StaffRole, mode: Mode): boolean {
  if (role === 'owner' || role === 'admin') return true;
  return role === 'developer' && mode === 'sandbox';
}

export function requireKeyManagement(role: StaffRole, mode: Mode): void {
  if (canManageKeys(role, mode)) return;
  throw new ApiError(
    'forbidden',
    mode === 'production'
      ? 'Only an owner or an admin can mint or revoke live keys.'
      : 'Only an owner, an admin or a developer can mint or revoke test keys.',
  );
}

/** Branding (the debtor portal's look): owners and admins change it; every role reads it. */
export function canChangeBranding(role: StaffRole): boolean {
  return role === 'owner' || role === 'admin';
}

export function requireBrandingChange(role: StaffRole): void {
  if (!canChangeBranding(role)) throw new ApiError('forbidden', 'Only an owner or an admin can change the branding.');
}

/** The debtor portal's settings (the plan rules): owners and admins change them; every role reads them. */
export function canChangePortalSettings(role: StaffRole): boolean {
  return role === 'owner' || role === 'admin';
}

export function requirePortalSettingsChange(role: StaffRole): void {
  if (!canChangePortalSettings(role)) {
    throw new ApiError('forbidden', 'Only an owner or an admin can change the debtor portal’s settings.');
  }
}

/** A recall (`PATCH status=Closed` through the lifecycle): owners and admins. */
export function canRecallDebts(role: StaffRole): boolean {
  return role === 'owner' || role === 'admin';
}

export function requireRecall(role: StaffRole): void {
  if (!canRecallDebts(role)) throw new ApiError('forbidden', 'Only an owner or an admin can recall a debt.');
}

/** A placement (upload a file of debts, cancel one): whoever may recall debts, owners and admins. */
export function canPlaceDebts(role: StaffRole): boolean {
  return canRecallDebts(role);
}

export function requirePlacing(role: StaffRole): void {
  if (!canPlaceDebts(role))
    throw new ApiError('forbidden', 'Only an owner or an admin can upload or cancel a placement.');
}

/**
 * A placement's failed rows as uploaded: debtor data in the client's own file, unmasked (dates of birth and
 * postcodes, which the debtor pages show every role masked only), of rows that may be no debtor of ours at all. Those
 * who may upload such a file get it back to fix: owners and admins. The rows' problems (row, column, code, words)
 * carry no debtor data: every role reads them.
 */
export function canDownloadPlacementRows(role: StaffRole): boolean {
  return canPlaceDebts(role);
}

export function requirePlacementRowsDownload(role: StaffRole): void {
  if (!canDownloadPlacementRows(role)) {
    throw new ApiError(
      'forbidden',
      'Only an owner or an admin can download a placement’s failed rows: they hold the debtors’ data as uploaded.',
    );
  }
}

/** The team (invite, change a role, remove): owners only. */
export function canManageTeam(role: StaffRole): boolean {
  return role === 'owner';
}

export function requireTeamManagement(role: StaffRole): void {
  if (!canManageTeam(role)) throw new ApiError('forbidden', 'Only an owner can invite, change or remove users.');
}

/**
 * The webhook receiver (URL, secret, test event) and retries of its deliveries: owner and admin; a developer on the
 * sandbox host, where the receiver gets test events only.
 */
export function canManageWebhooks(role: StaffRole, mode: Mode): boolean {
  if (role === 'owner' || role === 'admin') return true;
  return role === 'developer' && mode === 'sandbox';
}

export function requireWebhookManagement(role: StaffRole, mode: Mode): void {
  if (canManageWebhooks(role, mode)) return;
  throw new ApiError(
    'forbidden',
    mode === 'production'
      ? 'Only an owner or an admin can change the webhook receiver or retry deliveries.'
      : 'Only an owner, an admin or a developer can change the webhook receiver or retry deliveries.',
  );
}

/** The audit log: owners and admins. */
export function canReadAudit(role: StaffRole): boolean {
  return role === 'owner' || role === 'admin';
}

export function requireAuditReading(role: StaffRole): void {
  if (!canReadAudit(role)) throw new ApiError('forbidden', 'Only an owner or an admin can read the audit log.');
}

/**
 * The sandbox's test actions in the console (the debt page's simulations, "Reset sandbox now"): owner, admin and
 * developer, on the sandbox host only. A developer may mint a test key with every scope, which can do both through
 * the API (`/v1/sandbox/…`); refusing them the same in the console would protect nothing. A viewer reads only.
 */
export function canRunSandboxTests(role: StaffRole, mode: Mode): boolean {
  return mode === 'sandbox' && role !== 'viewer';
}

export function requireSandboxTesting(role: StaffRole, mode: Mode): void {
  if (canRunSandboxTests(role, mode)) return;
  throw new ApiError(
    'forbidden',
    mode === 'production'
      ? 'Simulations and resets exist on the sandbox host only.'
      : 'Only an owner, an admin or a developer can run simulations or reset the sandbox.',
  );
}

/** A debt's portal link (send a new one, revoke it): owners and admins. */
export function canManagePortalLinks(role: StaffRole): boolean {
  return role === 'owner' || role === 'admin';
}

export function requirePortalLinkManagement(role: StaffRole): void {
  if (!canManagePortalLinks(role)) {
    throw new ApiError('forbidden', 'Only an owner or an admin can send or revoke a portal link.');
  }
}
