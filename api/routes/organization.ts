/** GET /v1/organization: the caller's organisation, for any valid key (spec §5.7). */
import { defineApiRoute, type RouteDefinition } from '../http/route-definition';

export const organizationSchema = {
  type: 'object',
  required: ['id', 'name', 'mode', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    mode: { type: 'string', enum: ['production', 'sandbox'] },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

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
          example: {
            id: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
            name: 'Acme Lending',
            mode: 'production',
            createdAt: '2026-11-22T07:00:00.000Z',
          },
        },
      },
      // Authentication loaded the organisation with the key; a deleted organisation takes its keys with it (401).
      handler: async (_ctx, { auth }) => ({ status: 200, body: auth.organization }),
    }),
  ];
}
