/**
 * The console's Debtor portal page's write: the organisation's plan rules (core/portal/plan-rules.ts), role checked
 * first, saved with its audit entry in one transaction.
 */
import type { Mode } from '../platform/config';
import type { Db } from '../platform/db';
import { ApiError } from '../platform/errors';
import { planRulesProblem, savePlanRules, type PlanRules } from '../portal/plan-rules';
import { recordAudit } from './audit-log';
import type { StaffActor } from './staff-actor';
import { requirePortalSettingsChange } from './roles';

export async function changePortalPlanRules(db: Db, actor: StaffActor, mode: Mode, rules: PlanRules): Promise<void> {
  requirePortalSettingsChange(actor.role);
  const problem = planRulesProblem(rules);
  if (problem) throw new ApiError('invalid_request', problem);
  await db.transaction(async (trx) => {
    await savePlanRules(trx, actor.organizationId, rules);
    await recordAudit(trx, actor, mode, { action: 'portal.plan_rules_changed', details: { ...rules } });
  });
}
