/**
 * The signed-in pages: Overview and API keys (list, a key's page, mint with the secret shown once, revoke with a
 * confirmation and a flash message after).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { isScope, type Scope } from '../../../core/access/scopes';
import { ApiError, errors } from '../../../core/platform/errors';
import { isUuid } from '../../../core/platform/ids';
import { findConsoleKey, listConsoleKeys, mintConsoleKey, revokeConsoleKey } from '../../../core/staff/console-keys';
import { loadConsoleOverview } from '../../../core/staff/console-overview';
import { loadWebAssets } from '../../assets';
import { canManageKeys } from '../../../core/staff/roles';
import type { StaffSession } from '../../../core/staff/sessions';
import type { ConsoleContext } from '../shared/console-context';
import { field, type FormBody } from '../shared/http';
import { KeyBody, KeysBody, MintedBody, RevokeConfirmBody } from './keys-pages';
import { OverviewBody } from './overview-page';

export function accountRoutes(router: Router, c: ConsoleContext): void {
  const { db, config } = c.deps;
  const mode = config.mode;
  const keyKind = mode === 'production' ? 'live' : 'test';
  const actor = (s: StaffSession) => ({ ...s });
  // The Overview's charts have a stylesheet of their own, linked from that page only.
  const charts = loadWebAssets('charts.css', '/console/assets/charts/');
  router.get(charts.stylesheetHref, charts.serve);

  /** The session of a signed-in GET; a signed-out visitor is sent to the sign-in page. */
  async function signedIn(ctx: Context): Promise<StaffSession | null> {
    const session = await c.session(ctx);
    if (!session) ctx.redirect('/console/sign-in');
    return session;
  }

  router.get('/console', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const overview = await loadConsoleOverview(db, session.organizationId);
    c.page(ctx, 'Overview', <OverviewBody overview={overview} chartsStylesheetHref={charts.stylesheetHref} />);
  });

  router.get('/console/keys', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const keys = await listConsoleKeys(db, session.organizationId, mode);
    const canManage = canManageKeys(session.role, mode);
    c.page(
      ctx,
      'API keys',
      <KeysBody keys={keys} csrfToken={session.csrfToken} canManage={canManage} keyKind={keyKind} />,
    );
  });

  router.post('/console/keys', async (ctx) => {
    const { form, session } = await c.sessionForm(ctx);
    const minted = await mintConsoleKey(db, actor(session), mode, mintInput(form));
    // The minted page is the confirmation: the secret is shown on it once, so it is rendered, not redirected to.
    c.page(ctx, 'Key minted', <MintedBody apiKey={minted.apiKey} secret={minted.secret} />, 201);
  });

  router.get('/console/keys/:id', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const key = await findConsoleKey(db, session.organizationId, mode, keyId(ctx.params.id));
    c.page(ctx, 'API key', <KeyBody apiKey={key} canManage={canManageKeys(session.role, mode)} />);
  });

  router.get('/console/keys/:id/revoke', async (ctx) => {
    const session = await signedIn(ctx);
    if (!session) return;
    const key = await findConsoleKey(db, session.organizationId, mode, keyId(ctx.params.id));
    c.page(ctx, 'Revoke a key', <RevokeConfirmBody apiKey={key} csrfToken={session.csrfToken} />);
  });

  router.post('/console/keys/:id/revoke', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const key = await revokeConsoleKey(db, actor(session), mode, keyId(ctx.params.id));
    c.doneThen(ctx, '/console/keys', `Key ${key.name} (${key.prefix}…) revoked: requests with it are refused.`);
  });
}

function keyId(value: string | undefined): string {
  if (!value || !isUuid(value)) throw errors.notFound('API key');
  return value;
}

function limit(form: FormBody, name: string, label: string): number | null {
  const value = field(form, name).trim();
  if (value === '') return null;
  if (!/^[1-9]\d{0,8}$/.test(value)) throw errors.invalidRequest(`${label} must be a whole number from 1.`);
  return Number(value);
}

function mintInput(form: FormBody) {
  const name = field(form, 'name').trim();
  if (name === '' || name.length > 100) throw errors.invalidRequest('A key needs a name of 1 to 100 characters.');
  const scopes = (form.scopes ?? []).filter((s): s is Scope => isScope(s));
  if (scopes.length !== (form.scopes ?? []).length) throw new ApiError('invalid_request', 'Unknown scope.');
  return {
    name,
    scopes: [...new Set(scopes)],
    readOnly: field(form, 'read_only') === 'yes',
    hourlyLimit: limit(form, 'hourly_limit', 'Requests per hour'),
    dailyLimit: limit(form, 'daily_limit', 'Requests per day'),
  };
}
