/**
 * What every console route shares: the dependencies, the session store, cookie names, and the helpers that make the
 * rules hard to forget: `page` renders inside the layout, `anonymousForm` and `sessionForm` read a POST's form only
 * after the origin check and the synchronizer token (and, for `sessionForm`, a live session), and `signIn` starts a
 * session the one way (the sign-in link's POST and the sandbox's sign-up).
 */
import type { Context } from 'koa';
import type { VNode } from 'preact';
import type { Config } from '../../../core/platform/config';
import type { Db } from '../../../core/platform/db';
import { ApiError } from '../../../core/platform/errors';
import type { Logger } from '../../../core/platform/logger';
import { withinCommandTimeout, type Redis } from '../../../core/platform/redis';
import type { Mailer } from '../../../core/notifications/mail';
import type { DebtTriggers } from '../../../core/lifecycle/triggers';
import type { DocumentStore } from '../../../core/documents/store';
import type { PlacementRuns } from '../../../core/placements/placement-runs';
import type { SimulationReader } from '../../../core/lifecycle/simulations';
import type { SandboxResets } from '../../../core/sandbox/resets';
import type { SignupLimiter } from '../../../core/sandbox/signup-limit';
import type { SecretBox } from '../../../core/platform/secret-box';
import type { ResolveHost } from '../../../core/webhooks/ssrf-guard';
import type { DeliveryRetryNow } from '../../../core/webhooks/delivery-retry-now';
import type { SignInLinkDeps } from '../../../core/staff/magic-links';
import type { MembershipCache } from '../../../core/staff/membership';
import type { SessionStore, SessionUser, StaffSession } from '../../../core/staff/sessions';
import { renderConsolePage } from '../../layout-shell';
import { sendHtml } from '../../page';
import {
  checkCsrfToken,
  checkSameOrigin,
  clearCookie,
  readForm,
  seeOther,
  setCookie,
  type CookieNames,
  type FormBody,
} from './http';
import { setFlash, takeFlash } from './flash';

export interface ConsoleDeps {
  config: Config;
  db: Db;
  redis: Redis;
  logger: Logger;
  mailer: Mailer;
  /** Debtor mail (a portal link sent from a debt's page), with the notifications' `From`; built from config if absent. */
  debtorMailer?: Mailer;
  /** The debt lifecycle's triggers, as the debt routes get them: a recall from the Debts page is one. */
  debtTriggers: DebtTriggers;
  /** The API's request rules for a branding field (its schema's lengths and forms), so the form applies the same. */
  brandingFieldRules: Record<string, { maxLength?: number; pattern?: string }>;
  /** Retry now on a delivery waiting between attempts; without it (tests of pages alone) the button is not offered. */
  deliveryRetryNow?: DeliveryRetryNow;
  /** Tests move the sign-in links' clock past their 15 minutes. */
  now?: () => Date;
  /** What the Webhooks page needs beyond the config: the API's secret box and receiver host resolver. */
  webhooks: ConsoleWebhookSettings;
  /** Where debts' documents are kept (the API's store): a debt's page links to each for download. */
  documents: DocumentStore;
  /** Starts placements' workflows (the API's); without it, an upload from the Placements page is a 503 page. */
  placementRuns?: PlacementRuns;
  /** The sandbox host's own parts (sign-up, reset, simulations); absent on the production host. */
  sandbox?: ConsoleSandboxDeps;
}

/** What the sandbox pages share with the API's sandbox routes, so that both doors apply the same rules. */
export interface ConsoleSandboxDeps {
  /** The sign-up limit per client address: the API's limiter itself, so both sign-ups count in one window. */
  signupLimiter: SignupLimiter;
  /** The tenants' reset workflows; without them (tests of pages alone) the reset is a 503 page. */
  resets?: SandboxResets;
  /** The simulation routes' schemas and conversions (api/routes/sandbox-input.ts). */
  simulations: SimulationReader;
  /** The sign-up route's schema: the organisation's name. */
  readSignup(body: Record<string, unknown>): { organizationName?: string };
}

export interface ConsoleWebhookSettings {
  secretBox: SecretBox;
  resolveHost: ResolveHost;
  resolveTimeoutMs?: number;
}

export interface ConsoleContext {
  deps: ConsoleDeps;
  sessions: SessionStore;
  /** Each request's user as `staff_users` has them now (core/staff/membership.ts). */
  membership: MembershipCache;
  linkDeps: SignInLinkDeps;
  names: CookieNames;
  secure: boolean;
  stylesheetHref: string;
  session(ctx: Context): Promise<StaffSession | null>;
  page(ctx: Context, title: string, body: VNode, status?: number, options?: { refreshSeconds?: number }): void;
  anonymousForm(ctx: Context): Promise<FormBody>;
  sessionForm(ctx: Context): Promise<{ form: FormBody; session: StaffSession }>;
  /** After a write: the flash `message` for the next page, and a 303 to `location` (post, redirect, get). */
  doneThen(ctx: Context, location: string, message: string): void;
  /**
   * Signs `user` in: a new session (a new id; the browser's previous one ends) in the cookie, the pre-session token
   * dropped. The page this request renders is already the signed-in one.
   */
  signIn(ctx: Context, user: SessionUser): Promise<StaffSession>;
}

const SESSION_STATE = Symbol('console session');
/** The signed-in user's organisation's name, read with their membership: every page's header and title say it. */
const ORGANIZATION_NAME = Symbol('console organisation name');

export function createConsoleContext(
  deps: ConsoleDeps,
  parts: { sessions: SessionStore; membership: MembershipCache; names: CookieNames; stylesheetHref: string },
): ConsoleContext {
  const { config } = deps;
  const secure = config.console.secureCookies;
  /**
   * The session with its user's membership as it is now: null for a user no longer in the organisation (their
   * session ended here too, in case the removal's own attempt failed), else the current role and email.
   */
  async function currentUser(
    state: Record<symbol, unknown>,
    session: StaffSession,
    id: string,
  ): Promise<StaffSession | null> {
    const member = await parts.membership.current(session.organizationId, session.userId);
    if (!member) {
      await parts.sessions.destroy(id).catch((err: unknown) => {
        deps.logger.warn(
          { err: (err as Error).message, userId: session.userId },
          'could not end a removed user’s session',
        );
      });
      return null;
    }
    state[ORGANIZATION_NAME] = member.organizationName;
    const { email, role } = member;
    return role === session.role && email === session.email ? session : { ...session, email, role };
  }
  const c: ConsoleContext = {
    deps,
    ...parts,
    secure,
    linkDeps: {
      db: deps.db,
      redis: deps.redis,
      mailer: deps.mailer,
      logger: deps.logger,
      publicBaseUrl: config.publicBaseUrl,
      mode: config.mode,
      limits: {
        perEmailAndAddress: config.console.signInRequestsPerHour,
        perAddress: config.console.signInRequestsPerAddressPerHour,
        perEmail: config.console.signInLinksPerEmail,
      },
      now: deps.now,
    },
    async session(ctx) {
      const state = ctx.state as Record<symbol, StaffSession | null | undefined>;
      if (state[SESSION_STATE] !== undefined) return state[SESSION_STATE];
      const id = ctx.cookies.get(parts.names.session);
      // Bounded as a whole, as the portal's: with Redis stalled, the read's commands would each wait out a timeout.
      const stored = id ? await withinCommandTimeout(parts.sessions.touch(id)) : null;
      const session = stored && id ? await currentUser(ctx.state, stored, id) : null;
      state[SESSION_STATE] = session;
      return session;
    },
    page(ctx, title, body, status = 200, options = {}) {
      const state = ctx.state as Record<symbol, unknown>;
      const s = state[SESSION_STATE] as StaffSession | null | undefined;
      const organizationName = state[ORGANIZATION_NAME] as string | undefined;
      const user = s
        ? { email: s.email, role: s.role, csrfToken: s.csrfToken, organizationName: organizationName ?? '' }
        : undefined;
      const flash = s ? takeFlash(ctx, secure) : undefined;
      const layout = {
        title,
        stylesheetHref: parts.stylesheetHref,
        user,
        mode: config.mode,
        flash,
        refreshSeconds: options.refreshSeconds,
      };
      sendHtml(ctx, renderConsolePage(layout, body), status);
    },
    doneThen(ctx, location, message) {
      setFlash(ctx, secure, message);
      seeOther(ctx, location);
    },
    async anonymousForm(ctx) {
      checkSameOrigin(ctx, config.publicBaseUrl);
      const form = await readForm(ctx);
      checkCsrfToken(ctx.cookies.get(parts.names.preSession) ?? '', form);
      return form;
    },
    async sessionForm(ctx) {
      checkSameOrigin(ctx, config.publicBaseUrl);
      const session = await c.session(ctx);
      if (!session) throw new ApiError('unauthenticated', 'Your session has ended. Sign in again.');
      const form = await readForm(ctx);
      checkCsrfToken(session.csrfToken, form);
      return { form, session };
    },
    async signIn(ctx, user) {
      const previous = ctx.cookies.get(parts.names.session);
      if (previous) await parts.sessions.destroy(previous);
      const id = await parts.sessions.create(user);
      setCookie(ctx, parts.names.session, id, secure);
      clearCookie(ctx, parts.names.preSession, secure);
      const session = await parts.sessions.touch(id);
      if (!session) throw new Error('a session just created was not found');
      const member = await parts.membership.current(session.organizationId, session.userId);
      (ctx.state as Record<symbol, unknown>)[ORGANIZATION_NAME] = member?.organizationName;
      (ctx.state as Record<symbol, StaffSession | null | undefined>)[SESSION_STATE] = session;
      deps.logger.info({ userId: user.userId, organizationId: user.organizationId }, 'console sign-in');
      return session;
    },
  };
  return c;
}
