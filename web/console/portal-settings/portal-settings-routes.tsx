/** The Debtor portal settings page (every role reads it) and its POST (owners and admins; audited). */
import type Router from '@koa/router';
import { PLAN_FREQUENCIES, type PlanFrequency } from '../../../core/debts/debt-status';
import { ApiError } from '../../../core/platform/errors';
import { getPlanRules, type PlanRules } from '../../../core/portal/plan-rules';
import { changePortalPlanRules } from '../../../core/staff/console-portal-settings';
import { canChangePortalSettings, requirePortalSettingsChange } from '../../../core/staff/roles';
import type { ConsoleContext } from '../shared/console-context';
import { field, type FormBody } from '../shared/http';
import { PortalSettingsBody, settingsValues, type PortalSettingsValues } from './portal-settings-pages';
import { actorOf, signedIn } from '../shared/signed-in';

const TITLE = 'Debtor portal';

export function portalSettingsRoutes(router: Router, c: ConsoleContext): void {
  const { db, config } = c.deps;

  router.get('/console/portal-settings', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const rules = await getPlanRules(db, session.organizationId);
    c.page(
      ctx,
      TITLE,
      <PortalSettingsBody
        csrfToken={session.csrfToken}
        canChange={canChangePortalSettings(session.role)}
        values={settingsValues(rules)}
        saved={ctx.query.saved === '1'}
      />,
    );
  });

  router.post('/console/portal-settings', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    requirePortalSettingsChange(session.role);
    const values = submitted(form);
    try {
      await changePortalPlanRules(db, actorOf(session), config.mode, rulesOf(values));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      const body = (
        <PortalSettingsBody csrfToken={session.csrfToken} canChange values={values} problem={error.message} />
      );
      return c.page(ctx, TITLE, body, 400);
    }
    ctx.status = 303;
    ctx.redirect('/console/portal-settings?saved=1');
  });
}

function submitted(form: FormBody): PortalSettingsValues {
  return {
    maxInstalments: field(form, 'maxInstalments').trim(),
    frequencies: (form.frequencies ?? []).filter((f) => (PLAN_FREQUENCIES as readonly string[]).includes(f)),
    minInstalmentAmount: field(form, 'minInstalmentAmount').trim(),
    firstDueWithinDays: field(form, 'firstDueWithinDays').trim(),
  };
}

/** Whole numbers as numbers (anything else fails the rules' check with its own words). */
function rulesOf(values: PortalSettingsValues): PlanRules {
  const whole = (text: string) => (/^\d{1,4}$/.test(text) ? Number(text) : NaN);
  return {
    maxInstalments: whole(values.maxInstalments),
    frequencies: values.frequencies as PlanFrequency[],
    minInstalmentAmount: values.minInstalmentAmount,
    firstDueWithinDays: whole(values.firstDueWithinDays),
  };
}
