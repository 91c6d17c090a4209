/**
 * The sandbox host's tenant routes (registered only in sandbox mode, so production answers 404 and its OpenAPI
 * document does not list them):
 * - `POST /sandbox/signup`: anonymous sign-up, outside `/v1` because it takes no key; rate-limited per address.
 * - `POST /v1/sandbox/reset`: wipe and reseed the caller's tenant now, through its reset workflow;
 * - `GET /v1/sandbox/reset`: where the tenant's reset stands (core/sandbox/reset-status.ts), read from the database so
 *   that a slow Temporal never slows it down. Neither shows the workflow's id: a client can do nothing with it.
 */
import type { DocumentStore } from '../../core/documents/store';
import type { Logger } from '../../core/platform/logger';
import type { SandboxResets } from '../../core/sandbox/resets';
import { requestSandboxReset, sandboxResetStatus } from '../../core/sandbox/reset-request';
import { signUpSandboxTenant } from '../../core/sandbox/signup';
import { requireSignupAllowed, type SignupLimiter } from '../../core/sandbox/signup-limit';
import {
  defineApiRoute,
  defineRoute,
  type ApiRouteInput,
  type ApiWorkflowInput,
  type MutationInput,
  type RouteDefinition,
} from '../http/route-definition';
import {
  sandboxResetRequestedExample,
  sandboxResetStatusExample,
  sandboxResetStatusSchema,
  sandboxSignupBody,
  sandboxSignupExample,
  sandboxSignupSchema,
} from '../schemas/sandbox-tenant';

export interface SandboxTenantDeps {
  signupLimiter: SignupLimiter;
  logger: Logger;
  /** The tenants' reset workflows; without it (tests of the routes alone) sign-up starts none and reset is 503. */
  resets?: SandboxResets;
  /** Where the seed's sample agreements are stored. */
  documents?: DocumentStore;
}

export function sandboxTenantRoutes(deps: SandboxTenantDeps): RouteDefinition[] {
  return [signupRoute(deps), resetRoute(deps), resetStatusRoute()];
}

function signupRoute({ signupLimiter, logger, resets, documents }: SandboxTenantDeps): RouteDefinition {
  return defineRoute<MutationInput<{ organizationName?: string }>>({
    method: 'post',
    path: '/sandbox/signup',
    operationId: 'signUpForSandbox',
    summary: 'Sign up for the sandbox',
    description:
      'Creates a sandbox organisation with the seeded dataset (5 debtors, 8 debts) and one `ak_test_` key with every ' +
      'scope. The key is in this response only: store it now. No key is needed; sign-ups are limited per address.',
    tags: ['Sandbox'],
    auth: { kind: 'none' },
    body: sandboxSignupBody,
    optionalBody: true,
    errors: ['rate_limited'],
    responses: {
      201: { description: 'The organisation and its key.', schema: sandboxSignupSchema, example: sandboxSignupExample },
    },
    prepare: (ctx) => requireSignupAllowed(signupLimiter, ctx.ip),
    handler: async (_ctx, { trx, body, afterCommit }) => {
      const signup = await signUpSandboxTenant(trx, { organizationName: body.organizationName }, documents);
      const organizationId = signup.organization.id;
      afterCommit(async () => {
        // Best effort: the tenant's first authenticated request starts the workflow if this did not.
        await resets?.start(organizationId).catch((err: unknown) => {
          logger.warn({ err: (err as Error).message, organizationId }, 'could not start the sandbox reset workflow');
        });
      });
      const { apiKey } = signup;
      return {
        status: 201,
        headers: { 'Cache-Control': 'no-store' },
        body: {
          organization: signup.organization,
          apiKey: {
            id: apiKey.id,
            key: signup.secret,
            prefix: apiKey.prefix,
            name: apiKey.name,
            scopes: apiKey.scopes,
            readOnly: apiKey.readOnly,
            createdAt: apiKey.createdAt,
          },
        },
      };
    },
  });
}

function resetRoute({ resets }: SandboxTenantDeps): RouteDefinition {
  return defineApiRoute<ApiWorkflowInput>({
    method: 'post',
    path: '/v1/sandbox/reset',
    operationId: 'resetSandbox',
    summary: 'Reset your sandbox data',
    description:
      'Wipes your debts, debtors, transactions, events, webhook deliveries, idempotency records and placements ' +
      '(with their errors and files; one still importing stops) and seeds the dataset again, as the 7-day idle reset does; keeps your organisation, branding, API keys and webhook ' +
      'configuration. Asynchronous: the reset starts at once and usually ends within seconds; `debt.*` webhooks ' +
      'are not sent for the new seed. Answers where your reset stands, as `GET /v1/sandbox/reset` does (`status` ' +
      '`Requested` until it has finished).',
    tags: ['Sandbox'],
    scope: 'debts:write',
    errors: ['service_unavailable'],
    responses: {
      202: {
        description: 'The reset was accepted: where it stands now.',
        schema: sandboxResetStatusSchema,
        example: sandboxResetRequestedExample,
      },
    },
    // The signal is the change: sent before the answer, with no transaction around it, so a 202 (saved under an
    // Idempotency-Key) always means the workflow has the request, and a failure is an unsaved 503 to retry. Saving the
    // 202 before signalling would leave, on a failed signal, a saved 202 for a reset never asked for that every retry
    // replays.
    drivesWorkflow: true,
    handler: async (_ctx, { auth, db }) => ({
      status: 202,
      body: await requestSandboxReset({ db, resets }, auth.organizationId),
    }),
  });
}

function resetStatusRoute(): RouteDefinition {
  return defineApiRoute<ApiRouteInput>({
    method: 'get',
    path: '/v1/sandbox/reset',
    operationId: 'getSandboxResetStatus',
    summary: 'See when your sandbox data is reset',
    description:
      'Your last use, the next idle reset (7 days after the last use) and the last reset, and whether a reset you ' +
      'asked for is still under way (`status` `Requested`). Poll it after `POST /v1/sandbox/reset` until `status` ' +
      'is `Scheduled` again. Like every authenticated request, reading it counts as a use.',
    tags: ['Sandbox'],
    scope: 'debts:read',
    responses: {
      200: {
        description: 'Where your reset stands.',
        schema: sandboxResetStatusSchema,
        example: sandboxResetStatusExample,
      },
    },
    handler: async (_ctx, { auth, db }) => ({ status: 200, body: await sandboxResetStatus(db, auth.organizationId) }),
  });
}
