/**
 * Builds the Koa application without listening (STYLE.md §1): tests drive it in-process or on port 0.
 * Middleware order: client address, request id and request log (one layer) → (under `/portal`: the portal's pages,
 * nothing else) → (outside `/v1`: the opt-out and console pages) → problem renderer and 404/405 → (outside `/v1`:
 * Stripe's webhook) → `/v1` key and rate limit → router (read-only and scope checks, body parser, validation,
 * handler). Authenticating first means an unauthenticated request is refused before its body is read, and every `/v1`
 * answer, 404 included, carries the rate-limit headers; a read-only key or a missing scope is refused before the body
 * is read too.
 */
import path from 'node:path';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import type { Config } from '../core/platform/config';
import type { Db } from '../core/platform/db';
import { pingDb } from '../core/platform/db';
import type { Logger } from '../core/platform/logger';
import { pingRedis, type Redis } from '../core/platform/redis';
import type { SecretBox } from '../core/platform/secret-box';
import { resolveAll, type ResolveHost } from '../core/webhooks/ssrf-guard';
import { loadDocsSite } from './discovery/docs-site';
import { jsonBodyGuard } from './http/middleware/json-body';
import { problemErrors } from './http/middleware/problem-errors';
import { httpsPages } from './http/middleware/https-pages';
import { requestFrame } from './http/middleware/request-frame';
import { createExecutor } from './http/idempotent-execution';
import { apiKeyGuard, authenticateV1, isV1Path } from './http/api-key-guard';
import { createKeyAuthenticator } from './http/key-auth';
import { createMetrics, type ApiMetrics } from './http/metrics';
import { buildOpenApiDocument, hostServers } from './discovery/openapi-document';
import { createRateLimiter } from './http/rate-limit';
import type { ApiState, RouteDefinition } from './http/route-definition';
import { buildRouter } from './http/router';
import { discoveryRoutes } from './routes/discovery';
import { healthRoutes } from './routes/health';
import { organizationRoutes } from './routes/organization';
import { debtRoutes } from './routes/debts';
import type { DebtTriggers } from '../core/lifecycle/triggers';
import { debtorRoutes } from './routes/debtors';
import { documentRoutes } from './routes/documents';
import { placementRoutes } from './routes/placements';
import type { PlacementRuns } from '../core/placements/placement-runs';
import { createDocumentStore } from '../core/documents/create-store';
import type { DocumentStore } from '../core/documents/store';
import { transactionRoutes } from './routes/transactions';
import { brandingRoutes } from './routes/branding';
import { patchBrandingBody } from './schemas/branding';
import { eventRoutes } from './routes/events';
import { webhookDeliveryRoutes } from './routes/webhook-deliveries';
import { webhookRoutes } from './routes/webhooks';
import { sandboxSimulationRoutes } from './routes/sandbox-simulation';
import { PROJECT_ROOT } from '../core/platform/project-root';
import { sandboxTenantRoutes } from './routes/sandbox-tenant';
import { readSignup, simulationReader } from './routes/sandbox-input';
import { createActivityTouch } from '../core/sandbox/activity-touch';
import type { SandboxResets } from '../core/sandbox/resets';
import type { DeliveryRetryNow } from '../core/webhooks/delivery-retry-now';
import { createSignupLimiter } from '../core/sandbox/signup-limit';
import { createMailer, type Mailer } from '../core/notifications/mail';
import { consolePages } from '../web/console/console-pages';
import { createStripeClient, type Stripe } from '../core/payments/stripe-client';
import { createStripeProcessor } from '../core/payments/stripe-processor';
import { createStripeRefunder } from '../core/payments/stripe-refunder';
import { stripeWebhookIngest } from './routes/stripe-webhook';
import { isPortalPath, portalPages } from '../web/portal/portal-pages';
import type { PaymentProcessor } from '../core/payments/processor';
import type { StripeConfig } from '../core/platform/payment-config';
import { createTestModeProcessor } from '../core/payments/test-mode-processor';
import { loadWebAssets } from '../web/assets';
import { optOutPages } from '../web/notifications/opt-out-pages';

export interface AppDeps {
  config: Config;
  logger: Logger;
  db: Db;
  redis: Redis;
  /** Built once by the entry point from `config.webhooks.secretKeys`. */
  secretBox: SecretBox;
  /** Resolves when the mode's Temporal namespace answers. */
  checkTemporal: () => Promise<void>;
  /** The debt lifecycle's triggers (updates to each debt's workflow), in this mode's namespace. */
  debtTriggers: DebtTriggers;
  /** Where the Markdown guides live; defaults to the repository's docs/. */
  docsDir?: string;
  /** Resolves webhook receivers' host names; defaults to the system resolver (tests inject one that hangs). */
  resolveHost?: ResolveHost;
  /** How long PUT /v1/webhooks waits for that resolution (default 3 s). */
  resolveTimeoutMs?: number;
  /** Overrides `config.failedAuthLimit`: the test harness, all on 127.0.0.1, raises it. */
  failedAuthLimit?: number;
  /** Defaults to a fresh registry per app. */
  metrics?: ApiMetrics;
  /** Sandbox mode: the tenants' reset workflows (sign-up starts one, API use signals it, POST /v1/sandbox/reset). */
  /** Retry now on a delivery waiting between attempts (the console's button): a signal to its run. */
  deliveryRetryNow?: DeliveryRetryNow;
  sandboxResets?: SandboxResets;
  /** Outgoing mail (the console's sign-in links); defaults to SMTP at `config.mail` (nodemailer connects on send). */
  mailer?: Mailer;
  /** Debtor mail sent from the console (a new portal link); defaults to SMTP at `config.mail` with the notifications' From. */
  debtorMailer?: Mailer;
  /** The console's clock for sign-in links (tests move it past their 15 minutes). */
  consoleNow?: () => Date;
  /** Where uploaded documents (and placement files) are kept; defaults to the store `config.documents` describes. */
  documentStore?: DocumentStore;
  /** Starts placements' workflows, in this mode's namespace; without it, an upload answers 503. */
  placementRuns?: PlacementRuns;
  /**
   * The Stripe client of the webhook ingest and its refunds (PAYMENT_PROCESSOR=stripe); built from `config.payments`
   * if absent.
   */
  stripe?: Stripe;
  /**
   * Takes the debtor portal's payments: api/server.ts passes `createPaymentProcessor`'s (core/payments, with the
   * Temporal client the test card that fails later needs). Absent: the Stripe adapter when configured; else the
   * test-mode processor on the sandbox host (without later failures) and none in production (the portal then says
   * online payment is unavailable).
   */
  paymentProcessor?: PaymentProcessor;
  /** Extra route declarations (tests use this to exercise the machinery, e.g. deprecation). */
  extraRoutes?: RouteDefinition[];
}

export const DEFAULT_DOCS_DIR = path.join(PROJECT_ROOT, 'docs');

const NO_PLACEMENT_RUNS: PlacementRuns = {
  start: () => Promise.reject(new Error('no Temporal client for placements in this app')),
};

export interface BuiltApp {
  app: Koa<ApiState>;
  metrics: ApiMetrics;
  routes: RouteDefinition[];
  openApiDocument: Record<string, unknown>;
}

export function createApp(deps: AppDeps): BuiltApp {
  const { config, logger } = deps;
  const docs = loadDocsSite(deps.docsDir ?? DEFAULT_DOCS_DIR, {
    production: config.productionBaseUrl,
    sandbox: config.sandboxBaseUrl,
  });
  const metrics = deps.metrics ?? createMetrics();
  let openApiJson = '';
  const documentStore = deps.documentStore ?? createDocumentStore(config.documents);
  // One limiter for both sign-ups (the API's and the console's form): they count in the same window per address.
  const signupLimiter =
    config.mode === 'sandbox'
      ? createSignupLimiter({ redis: deps.redis, logger, limitPerHour: config.sandboxSignupsPerHour })
      : undefined;
  const routes: RouteDefinition[] = [
    ...healthRoutes({
      mode: config.mode,
      checks: { database: () => pingDb(deps.db), redis: () => pingRedis(deps.redis), temporal: deps.checkTemporal },
    }),
    ...discoveryRoutes({ openApiJson: () => openApiJson, docs, mode: config.mode, servers: hostServers(config) }),
    ...organizationRoutes(),
    ...debtRoutes(deps.debtTriggers),
    ...documentRoutes({ db: deps.db, store: documentStore }),
    ...placementRoutes({ store: documentStore, runs: deps.placementRuns ?? NO_PLACEMENT_RUNS }),
    ...debtorRoutes(),
    ...transactionRoutes(),
    ...brandingRoutes({ redis: deps.redis }),
    ...webhookRoutes({
      webhooks: config.webhooks,
      secretBox: deps.secretBox,
      resolveHost: deps.resolveHost ?? resolveAll,
      resolveTimeoutMs: deps.resolveTimeoutMs,
    }),
    ...webhookDeliveryRoutes(),
    ...eventRoutes(),
    // The sandbox's routes exist on the sandbox host only: production answers 404 and does not document them.
    ...(config.mode === 'sandbox' ? sandboxSimulationRoutes(deps.debtTriggers) : []),
    ...(signupLimiter
      ? sandboxTenantRoutes({
          signupLimiter,
          logger,
          resets: deps.sandboxResets,
          documents: documentStore,
        })
      : []),
    ...(deps.extraRoutes ?? []),
  ];
  const openApiDocument = buildOpenApiDocument(routes, config);
  openApiJson = JSON.stringify(openApiDocument);

  const authenticator = createKeyAuthenticator({
    db: deps.db,
    mode: config.mode,
    logger,
    failedAuthLimit: deps.failedAuthLimit ?? config.failedAuthLimit,
  });
  const rateLimiter = createRateLimiter({ redis: deps.redis, mode: config.mode, logger, metrics });
  const router = buildRouter(
    routes,
    createExecutor({ db: deps.db, errorBaseUrl: config.errorBaseUrl, secretBox: deps.secretBox }),
    // The body is parsed once the key may call the route: a read-only key is refused before its body is read.
    [apiKeyGuard(), jsonBodyGuard()],
  );
  const app = new Koa<ApiState>({ proxy: false });
  app.silent = true; // every error is rendered and logged by problemErrors; Koa's own stderr logging would double it
  app.use(requestFrame({ trustedProxies: config.trustedProxies, logger, metrics }));
  const mailer = deps.mailer ?? createMailer(config.mail);
  // The debtor portal's pages (web/portal), like the console's, render their own errors as pages.
  const portal: Middleware<ApiState> = portalPages({
    config,
    db: deps.db,
    redis: deps.redis,
    logger,
    debtTriggers: deps.debtTriggers,
    paymentProcessor: deps.paymentProcessor ?? defaultPaymentProcessor(deps),
  });
  const pages: Middleware<ApiState>[] = [
    // The opt-out link of debtor emails: a page of its own, no key, no session.
    optOutPages({ config, db: deps.db, logger, stylesheetHref: loadWebAssets().stylesheetHref }),
    // The console's pages (web/console) render their own errors as pages; everything else is the API's.
    consolePages({
      config,
      db: deps.db,
      redis: deps.redis,
      logger,
      mailer,
      ...(deps.debtorMailer ? { debtorMailer: deps.debtorMailer } : {}),
      debtTriggers: deps.debtTriggers,
      ...(deps.deliveryRetryNow ? { deliveryRetryNow: deps.deliveryRetryNow } : {}),
      brandingFieldRules: patchBrandingBody.properties as Record<string, { maxLength?: number; pattern?: string }>,
      now: deps.consoleNow,
      webhooks: {
        secretBox: deps.secretBox,
        resolveHost: deps.resolveHost ?? resolveAll,
        resolveTimeoutMs: deps.resolveTimeoutMs,
      },
      documents: documentStore,
      placementRuns: deps.placementRuns,
      sandbox: signupLimiter
        ? { signupLimiter, resets: deps.sandboxResets, simulations: simulationReader, readSignup }
        : undefined,
    }),
  ];
  const problems = problemErrors({ logger, errorBaseUrl: config.errorBaseUrl, router });
  // Stripe's webhook ingest (docs/payments.md): signed by Stripe, not keyed; its raw body read before any parser.
  const stripeIngest = config.payments.processor === 'stripe' ? [stripeIngestOf(deps, config.payments.stripe)] : [];
  const checkKey = authenticateV1(authenticator, rateLimiter);
  const sandboxActivity =
    config.mode === 'sandbox' && deps.sandboxResets
      ? createActivityTouch({ redis: deps.redis, resets: deps.sandboxResets, logger })
      : undefined;
  // The key checks of a `/v1` request, then its route, in one layer (each layer is paid on every request).
  const routed: Middleware<ApiState> = async (ctx, next) => {
    if (isV1Path(ctx.path)) {
      await checkKey(ctx);
      // Sandbox host: the tenant is in use, which its reset workflow hears (debounced; the request does not wait).
      if (sandboxActivity) void sandboxActivity.touch(ctx.state.auth!.organizationId);
    }
    await router.routes(ctx, next);
  };
  // A `/v1` request is the API's alone: it skips the pages' and Stripe's checks of its path (each a layer of every
  // request, on the API's busiest routes).
  // The problem renderer around the key checks and the route, without a composed chain's dispatch per layer.
  const v1: Middleware<ApiState> = (ctx, next): Promise<unknown> =>
    problems(ctx, () => routed(ctx, next) as Promise<unknown>) as Promise<unknown>;
  const everythingElse = compose([...pages, problems, ...stripeIngest, routed]);
  // Likewise a portal page is the portal's alone (a debtor's every page passes here): it answers everything under
  // /portal, errors included, and nothing else, so it is not one of `pages`.
  // Pages are served over https only where their cookies are Secure (https-pages.ts); `/v1` skips that layer.
  const httpsOnly = httpsPages({ secureCookies: config.console.secureCookies, publicBaseUrl: config.publicBaseUrl });
  const overHttps = (layer: Middleware<ApiState>) => (httpsOnly ? compose([httpsOnly, layer]) : layer);
  const portalOverHttps = overHttps(portal);
  const everythingElseOverHttps = overHttps(everythingElse);
  const byPath = (path: string) =>
    isV1Path(path) ? v1 : isPortalPath(path) ? portalOverHttps : everythingElseOverHttps;
  app.use((ctx, next): Promise<unknown> => byPath(ctx.path)(ctx, next) as Promise<unknown>);
  return { app, metrics, routes, openApiDocument };
}

function stripeIngestOf(deps: AppDeps, stripe: StripeConfig): Middleware<ApiState> {
  const client = deps.stripe ?? createStripeClient(stripe);
  return stripeWebhookIngest({
    db: deps.db,
    triggers: deps.debtTriggers,
    logger: deps.logger,
    stripe: client,
    webhookSecret: stripe.webhookSecret,
    refunder: createStripeRefunder(client),
  });
}

/** The portal's processor when the entry point passed none (tests, mostly): see `AppDeps.paymentProcessor`. */
function defaultPaymentProcessor(deps: AppDeps): PaymentProcessor | undefined {
  const { payments, mode } = deps.config;
  if (mode === 'production' && payments.processor === 'stripe') {
    return createStripeProcessor({
      db: deps.db,
      stripe: deps.stripe ?? createStripeClient(payments.stripe),
      publishableKey: payments.stripe.publishableKey,
    });
  }
  return mode === 'sandbox' ? createTestModeProcessor({ db: deps.db, triggers: deps.debtTriggers }) : undefined;
}
