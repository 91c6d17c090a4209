/**
 * The Branding page's write: the API's branding service (merge, `#RRGGBB`, "" clears) under a console role, with
 * its audit entry in the same transaction, and the debtor portal's cache invalidated after the commit and before
 * the page answers, as `PATCH /v1/organization/branding` does (api/routes/branding.ts). The role check comes first.
 */
import {
  BRANDING_FIELDS,
  getBranding,
  updateBranding,
  type Branding,
  type BrandingField,
  type BrandingPatch,
} from '../branding/branding';
import { invalidatePortalBranding } from '../branding/portal-cache';
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import type { Redis } from '../platform/redis';
import { recordAudit } from './audit-log';
import type { StaffActor } from './staff-actor';
import { requireBrandingChange } from './roles';

export interface BrandingChange {
  branding: Branding;
  /** The fields whose value the change moved (an empty list when the patch changed nothing). */
  changed: BrandingField[];
}

export async function changeConsoleBranding(
  deps: { db: Db; redis: Redis },
  actor: StaffActor,
  mode: Mode,
  patch: BrandingPatch,
): Promise<BrandingChange> {
  requireBrandingChange(actor.role);
  const result = await deps.db.transaction(async (trx) => {
    const before = await getBranding(trx, actor.organizationId);
    const branding = await updateBranding(trx, actor.organizationId, patch);
    const changed = BRANDING_FIELDS.filter((f) => before[f] !== branding[f]);
    if (changed.length > 0) {
      await recordAudit(trx, actor, mode, { action: 'branding.changed', details: { fields: changed } });
    }
    return { branding, changed };
  });
  // On every success, as the API does: a change whose invalidation failed committed, and its retry must not leave the
  // old branding cached.
  await invalidatePortalBranding(deps.redis, actor.organizationId);
  return result;
}
