/**
 * What every debtor portal route shares: the dependencies, the session store, cookie names, and helpers that make
 * the rules hard to forget: `visit` is the verified session (its link still live), `page` renders inside the branded
 * layout, `anonymousForm` and `visitForm` read a POST's form only after the origin check and the synchronizer token.
 */
import type { Context } from 'koa';
import type { VNode } from 'preact';
import type { Branding } from '../../core/branding/branding';
import { EMPTY_BRANDING } from '../../core/branding/branding';
import { getPortalBranding } from '../../core/branding/portal-cache';
import type { DebtTriggers } from '../../core/lifecycle/triggers';
import type { PaymentProcessor } from '../../core/payments/processor';
import { cachedIn } from '../../core/platform/bounded-cache';
import type { Config } from '../../core/platform/config';
import type { Db } from '../../core/platform/db';
import { ApiError } from '../../core/platform/errors';
import type { Logger } from '../../core/platform/logger';
import { withinCommandTimeout, type Redis } from '../../core/platform/redis';
import { readCreditorName } from '../../core/portal/debt-reads';
import { isPortalLinkLive, type PortalSession, type PortalSessionStore } from '../../core/portal/portal-sessions';
import { portalTheme } from '../../core/portal/theme';
import { sendHtml } from '../page';
import { checkCsrfToken, checkSameOrigin, readForm, type FormBody } from '../console/shared/http';
import { renderPortalPage, type PortalFrame } from './portal-layout';

export interface PortalDeps {
  config: Config;
  db: Db;
  redis: Redis;
  logger: Logger;
  /** The lifecycle's triggers: every debtor action is one of them. */
  debtTriggers: DebtTriggers;
  /** Takes the debtor's payments; absent, the portal says online payment is not available. */
  paymentProcessor?: PaymentProcessor;
  /** Tests move the portal's "today" (plan dates). */
  now?: () => Date;
}

export interface PortalCookieNames {
  session: string;
  preSession: string;
}

export interface PortalContext {
  deps: PortalDeps;
  sessions: PortalSessionStore;
  names: PortalCookieNames;
  secure: boolean;
  stylesheetHref: string;
  now(): Date;
  /** The verified visit, or null (no cookie, ended, or its link revoked). */
  visit(ctx: Context): Promise<PortalSession | null>;
  /** The verified visit of a GET, or an error page saying how to get back in. */
  requireVisit(ctx: Context): Promise<PortalSession>;
  /** The creditor's name and branding, for a verified visit's pages. */
  frameOf(session: PortalSession): Promise<PortalFrame>;
  /** The collector's own frame: before the second factor nothing of the creditor is shown. */
  neutralFrame(): PortalFrame;
  /** `csp` replaces the portal's policy for this page only (the Stripe card form's page needs Stripe's origins). */
  page(ctx: Context, frame: PortalFrame, title: string, body: VNode, status?: number, csp?: string): void;
  anonymousForm(ctx: Context): Promise<FormBody>;
  visitForm(ctx: Context): Promise<{ form: FormBody; session: PortalSession }>;
}

/** Logos and favicons are the organisation's https URLs; everything else stays as strict as the console's. */
export const PORTAL_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' https:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SESSION_STATE = Symbol('portal session');

export function portalCookieNames(secure: boolean): PortalCookieNames {
  return secure
    ? { session: '__Host-portal_session', preSession: '__Host-portal_csrf' }
    : { session: 'portal_session', preSession: 'portal_csrf' };
}

/** Hrefs by the colours they come from: the contrast checks were a few µs of every page. Bounded like a cache. */
const themeHrefs = new Map<string, string>();

export function themeHref(branding: Pick<Branding, 'primaryColor' | 'secondaryColor'>): string {
  const colours = `${branding.primaryColor ?? ''} ${branding.secondaryColor ?? ''}`;
  return cachedIn(themeHrefs, colours, () => {
    const theme = portalTheme(branding);
    return `/portal/theme.css?p=${theme.primary.slice(1)}&s=${theme.secondary.slice(1)}`;
  });
}

export function createPortalContext(
  deps: PortalDeps,
  parts: { sessions: PortalSessionStore; stylesheetHref: string },
): PortalContext {
  const { config, db } = deps;
  const secure = config.console.secureCookies;
  /** The cookie's live session, its link still live; a session whose link was revoked ends here. */
  async function readVisit(id: string | undefined): Promise<PortalSession | null> {
    // Bounded as a whole: a Redis that does not answer makes this a 503 page within the command timeout.
    const session = id ? await withinCommandTimeout(parts.sessions.touch(id)) : null;
    if (session && id && !(await isPortalLinkLive(db, session.organizationId, session.linkId))) {
      await parts.sessions.destroy(id);
      return null;
    }
    return session;
  }
  const c: PortalContext = {
    deps,
    ...parts,
    names: portalCookieNames(secure),
    secure,
    now: () => deps.now?.() ?? new Date(),
    visit(ctx) {
      // Read once a request, failure included: the error page asks again, and a second wait on a Redis that does
      // not answer would double the time to the 503 page.
      const state = ctx.state as Record<symbol, Promise<PortalSession | null> | undefined>;
      state[SESSION_STATE] ??= readVisit(ctx.cookies.get(c.names.session));
      return state[SESSION_STATE];
    },
    async requireVisit(ctx) {
      const session = await c.visit(ctx);
      if (!session) throw signedOut();
      return session;
    },
    async frameOf(session) {
      const [creditorName, branding] = await Promise.all([
        readCreditorName(db, session.organizationId),
        getPortalBranding(db, deps.redis, session.organizationId),
      ]);
      return {
        creditorName: creditorName ?? '',
        branding,
        collector: config.portal.collector,
        csrfToken: session.csrfToken,
      };
    },
    neutralFrame() {
      return { creditorName: null, branding: EMPTY_BRANDING, collector: config.portal.collector };
    },
    page(ctx, frame, title, body, status = 200, csp = PORTAL_CSP) {
      const { stylesheetHref } = parts;
      sendHtml(
        ctx,
        renderPortalPage(
          // A 400 is a refused answer: the document's title says so first, for screen readers (GOV.UK's "Error: ").
          {
            title,
            documentTitle: status === 400 ? `Error: ${title}` : undefined,
            stylesheetHref,
            themeHref: themeHref(frame.branding),
            frame,
          },
          body,
        ),
        status,
      );
      // The pages' headers are the portal middleware's (portal-pages.tsx); a page may widen the policy.
      if (csp !== PORTAL_CSP) ctx.set('Content-Security-Policy', csp);
    },
    async anonymousForm(ctx) {
      checkSameOrigin(ctx, config.publicBaseUrl);
      const form = await readForm(ctx);
      checkCsrfToken(ctx.cookies.get(c.names.preSession) ?? '', form);
      return form;
    },
    async visitForm(ctx) {
      checkSameOrigin(ctx, config.publicBaseUrl);
      const session = await c.visit(ctx);
      if (!session) throw signedOut();
      const form = await readForm(ctx);
      checkCsrfToken(session.csrfToken, form);
      return { form, session };
    },
  };
  return c;
}

function signedOut(): ApiError {
  return new ApiError(
    'unauthenticated',
    'Your visit has ended, or this page needs the link from your email. Open that link again to continue.',
  );
}
