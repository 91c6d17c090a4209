import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { JsonSchema, RouteDefinition } from '../../api/http/route-definition';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, raiseDebt } from '../support/debt-api';
import { listResourceOf, routeName, tenantRoutes } from '../support/route-table';
import { createOwnedResources, RESOURCE_FACTORIES } from '../support/tenant-resources';
import { dispatchAll, raiseEvent } from '../support/webhooks';
import { createTestTenant } from '../support/tenants';

/** Each filter of a list (every query parameter but limit and cursor) with a valid value for it. */
function filterValues(route: RouteDefinition): [string, string][] {
  const properties = (route.query?.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties)
    .filter(([name]) => name !== 'limit' && name !== 'cursor')
    .map(([name, schema]) => {
      if (Array.isArray(schema.enum)) return [name, String(schema.enum[0])];
      if (schema.format === 'uuid') return [name, randomUUID()];
      return [name, `filter-${name}@example.com`];
    });
}

describe('A cursor is bound to the organisation and the filters of the page that made it', function () {
  this.timeout(60_000);
  const ctx = useApiSuite();

  /** Two resources of every kind a list shows, so each list has a second page at limit=1. */
  async function twoOfEach(): Promise<void> {
    const owner = { tenant: ctx.tenant, api: ctx.api, markers: [] };
    await createOwnedResources(owner);
    const debt = await raiseDebt(ctx.api);
    for (const [resource, create] of Object.entries(RESOURCE_FACTORIES)) {
      if (resource !== 'webhooks/deliveries') await create(owner, { debt: async () => debt });
    }
    // The receiver is configured now: another event gets another delivery.
    await raiseEvent(ctx.tenant.organization.id, 'payment.received');
    await dispatchAll();
  }

  it('is refused with 400 by another organisation and with other filter values, on every list; limit may change', async () => {
    await twoOfEach();
    const other = callerFor(ctx.server.baseUrl, await createTestTenant());
    const lists = tenantRoutes(ctx.server.built.routes).filter((r) => listResourceOf(r));
    expect(lists).to.not.be.empty;
    for (const route of lists) {
      const first = await ctx.api<{ nextCursor: string | null }>('GET', `${route.path}?limit=1`);
      const cursor = first.body.nextCursor;
      expect(cursor, `${routeName(route)} has a second page`).to.be.a('string');
      const at = (query: string) => `${route.path}?cursor=${encodeURIComponent(cursor!)}${query}`;

      expect((await ctx.api('GET', at('&limit=2'))).status, `${routeName(route)} next page`).to.equal(200);
      const foreign = await other('GET', at('&limit=1'));
      expect(expectProblem(foreign, 400, 'invalid_request').errors, routeName(route)).to.deep.equal([
        { path: 'query.cursor', message: 'is not a cursor of this list with these filters' },
      ]);
      for (const [name, value] of filterValues(route)) {
        const filtered = await ctx.api('GET', at(`&limit=1&${name}=${encodeURIComponent(value)}`));
        expectProblem(filtered, 400, 'invalid_request');
      }
    }
  });

  it('is refused when made with a filter and used without it, or with another value', async () => {
    await raiseDebt(ctx.api);
    await raiseDebt(ctx.api);
    const first = await ctx.api<{ nextCursor: string }>('GET', '/v1/debts?limit=1&status=PendingAssignment');
    const cursor = encodeURIComponent(first.body.nextCursor);
    expect((await ctx.api('GET', `/v1/debts?status=PendingAssignment&cursor=${cursor}`)).status).to.equal(200);
    expectProblem(await ctx.api('GET', `/v1/debts?cursor=${cursor}`), 400, 'invalid_request');
    expectProblem(await ctx.api('GET', `/v1/debts?status=Closed&cursor=${cursor}`), 400, 'invalid_request');
  });
});
