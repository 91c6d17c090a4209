/**
 * Contact preferences (the email opt-out, core/notifications/contact-preferences.ts) and "tell us about your
 * circumstances" (core/portal/circumstances.ts: stored for the creditor, never in a workflow). Neither moves the
 * debt; both close with the debt's life, like every other action.
 */
import type Router from '@koa/router';
import { getContactPreferences, setEmailOptOut } from '../../core/notifications/contact-preferences';
import { MAX_CIRCUMSTANCES_LENGTH, recordCircumstances } from '../../core/portal/circumstances';
import { field } from '../console/shared/http';
import { CircumstancesBody, PreferencesBody } from './account-pages';
import { backToDebt, requireAction } from './debt-routes';
import { loadDebtView } from './debt-view';
import type { PortalContext } from './portal-context';

export function accountRoutes(router: Router, c: PortalContext): void {
  const { db } = c.deps;

  router.get('/portal/preferences', async (ctx) => {
    const session = await c.requireVisit(ctx);
    requireAction(await loadDebtView(c, session), 'talk');
    const preferences = await getContactPreferences(db, session.organizationId, session.debtorId);
    const body = <PreferencesBody csrfToken={session.csrfToken} emailOptedOut={preferences.emailOptedOut} />;
    c.page(ctx, await c.frameOf(session), 'Contact preferences', body);
  });

  router.post('/portal/preferences', async (ctx) => {
    const { form, session } = await c.visitForm(ctx);
    requireAction(await loadDebtView(c, session), 'talk');
    await setEmailOptOut(db, {
      organizationId: session.organizationId,
      debtorId: session.debtorId,
      optedOut: field(form, 'email') !== 'yes',
    });
    backToDebt(ctx, 'preferences');
  });

  router.get('/portal/circumstances', async (ctx) => {
    const session = await c.requireVisit(ctx);
    requireAction(await loadDebtView(c, session), 'talk');
    const body = <CircumstancesBody csrfToken={session.csrfToken} />;
    c.page(ctx, await c.frameOf(session), 'Tell us about your circumstances', body);
  });

  router.post('/portal/circumstances', async (ctx) => {
    const { form, session } = await c.visitForm(ctx);
    requireAction(await loadDebtView(c, session), 'talk');
    const text = field(form, 'circumstances').trim();
    if (text.length === 0 || text.length > MAX_CIRCUMSTANCES_LENGTH) {
      const problem =
        text.length === 0
          ? 'Please write something before sending.'
          : `Please keep your message to ${MAX_CIRCUMSTANCES_LENGTH} characters or fewer.`;
      const body = <CircumstancesBody csrfToken={session.csrfToken} text={text} problem={problem} />;
      return c.page(ctx, await c.frameOf(session), 'Tell us about your circumstances', body, 400);
    }
    await recordCircumstances(db, { organizationId: session.organizationId, debtId: session.debtId, body: text });
    backToDebt(ctx, 'circumstances');
  });
}
