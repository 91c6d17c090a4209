/** GET /v1/organization: the caller's organisation, for any valid key (spec §5.7). */
import type { Organization } from '../../core/access/organizations';
import { defineApiRoute, type RouteDefinition } from '../http/route-definition';
import { organizationExample, organizationSchema } from '../schemas/organization';

/**
 * The organisation as JSON, written once per loaded organisation (the key cache keeps one for a second): the
 * busiest cheap route of the API need not serialise the same object on every request.
 */
const jsonOf = new WeakMap<Organization, string>();
function organizationJson(organization: Organization): string {
  let json = jsonOf.get(organization);
  if (json === undefined) jsonOf.set(organization, (json = JSON.stringify(organization)));
  return json;
}

export function organizationRoutes(): RouteDefinition[] {
  return [
    defineApiRoute({
      method: 'get',
      path: '/v1/organization',
      operationId: 'getOrganization',
      summary: 'Your organisation',
      description: 'The organisation that owns the calling key. Any valid key may call it; no scope is needed.',
      tags: ['Organization'],
      scope: null,
      responses: {
        200: {
          description: 'The organisation.',
          schema: organizationSchema,
          example: organizationExample,
        },
      },
      // Authentication loaded the organisation with the key; a deleted organisation takes its keys with it (401).
      handler: async (_ctx, { auth }) => ({
        status: 200,
        body: organizationJson(auth.organization),
        contentType: 'application/json; charset=utf-8',
      }),
    }),
  ];
}
