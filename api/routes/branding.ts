/**
 * Organisation branding (spec §4). PATCH merges, commits, and invalidates the debtor portal's cache before it
 * answers, so a portal read after the answer sees the new branding. It invalidates on every success, unchanged
 * branding and idempotent replays included: a PATCH whose invalidation failed (Redis down) committed anyway, and its
 * retry must not leave the old branding cached.
 */
import { getBranding, updateBranding, type BrandingPatch } from '../../core/branding/branding';
import { invalidatePortalBranding } from '../../core/branding/portal-cache';
import type { Redis } from '../../core/platform/redis';
import { defineApiRoute, type ApiMutationInput, type RouteDefinition } from '../http/route-definition';
import { brandingExample, brandingSchema, patchBrandingBody } from '../schemas/branding';

export function brandingRoutes(deps: { redis: Redis }): RouteDefinition[] {
  return [
    defineApiRoute({
      method: 'get',
      path: '/v1/organization/branding',
      operationId: 'getBranding',
      summary: 'Your branding',
      description: 'The debtor portal’s branding. Until it is first set every field is null (the portal’s defaults).',
      tags: ['Organization'],
      scope: 'branding:read',
      responses: { 200: { description: 'The branding.', schema: brandingSchema, example: brandingExample } },
      handler: async (_ctx, { db, auth }) => ({ status: 200, body: await getBranding(db, auth.organizationId) }),
    }),
    defineApiRoute<ApiMutationInput<BrandingPatch>>({
      method: 'patch',
      path: '/v1/organization/branding',
      operationId: 'updateBranding',
      summary: 'Update your branding',
      description:
        'Merges the fields sent (null leaves a field alone, "" clears a clearable one). Every debtor portal shows ' +
        'the new branding by the time this answers.',
      tags: ['Organization'],
      scope: 'branding:write',
      body: patchBrandingBody,
      errors: ['invalid_color', 'invalid_url'],
      responses: {
        200: { description: 'The branding after the change.', schema: brandingSchema, example: brandingExample },
      },
      handler: async (_ctx, { trx, auth, body }) => {
        return { status: 200, body: await updateBranding(trx, auth.organizationId, body) };
      },
      afterSuccess: ({ auth }) => invalidatePortalBranding(deps.redis, auth.organizationId),
    }),
  ];
}
