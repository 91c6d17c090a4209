import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RouteDefinition } from '../../api/http/route-definition';
import { newId } from '../../core/platform/ids';
import { startTestServer, type TestServer } from '../support/app';
import { callerFor, expectProblem, inlineDebtBody, raiseDebt, type Caller } from '../support/debt-api';
import { testDb } from '../support/resources';
import {
  exampleBody,
  idFilters,
  idResourceOf,
  isSingletonRead,
  listResourceOf,
  pathWithIds,
  routeName,
  tenantRoutes,
} from '../support/route-table';
import { createOwnedResources, RESOURCE_FACTORIES, type Owner } from '../support/tenant-resources';
import { createTestTenant, type TestTenant } from '../support/tenants';

type Resource = Record<string, unknown> & { id: string };
type Page = { data: Resource[]; nextCursor: string | null };

/** Which resource an id filter names. */
const FILTER_RESOURCES: Record<string, string> = { debtId: 'debts', debtorId: 'debtors' };
/** Bodies the intruder sends instead of the schema's example: this one would look up a public host. */
const INTRUDER_BODIES: Record<string, unknown> = { 'put /v1/webhooks': { clear: true } };

// Each host's own route table: the sandbox's adds its simulation routes (`/v1/sandbox/debts/{id}/…`).
for (const mode of ['production', 'sandbox'] as const) {
  describe(`Tenancy (${mode}): one organisation never reads, lists, changes or references another’s resources`, () => {
    let server: TestServer;
    let routes: RouteDefinition[];
    let mine: TestTenant;
    let me: Caller;
    let them: Caller;
    let owner: Owner;
    /** Their real resource ids, by the resource segment of the paths. */
    let theirIds: Map<string, string>;
    /** Everything they can GET, before anything else happens. */
    let theirWorldBefore: Map<string, unknown>;
    const theirId = (resource: string) => theirIds.get(resource)!;
    /** Their ids and distinctive values: none of these may appear in anything answered to me. */
    const theirs = () => [...theirIds.values(), ...owner.markers];

    /** What they see on every GET route: the shape of their organisation that nothing I do may change. */
    async function theirWorld(): Promise<Map<string, unknown>> {
      const world = new Map<string, unknown>();
      for (const route of routes.filter((r) => r.method === 'get')) {
        const path = idResourceOf(route) ? pathWithIds(route, (r) => theirIds.get(r)) : route.path;
        // A problem answer (their document's content, whose row the factory wrote without bytes) names its request.
        const { requestId: _requestId, ...answer } = (await them('GET', path)).body;
        // Their reads are their own uses: the sandbox reset's last use (and the next reset after it) move with them.
        if (route.path === '/v1/sandbox/reset') (delete answer.lastUsedAt, delete answer.nextResetAt);
        world.set(routeName(route), answer);
      }
      return world;
    }

    before(async () => {
      server = await startTestServer({ mode });
      routes = tenantRoutes(server.built.routes);
      const tag = randomUUID();
      const tenant = await createTestTenant({ name: `Theirs ${tag}`, mode });
      mine = await createTestTenant({ name: 'Mine', mode });
      me = callerFor(server.baseUrl, mine);
      them = callerFor(server.baseUrl, tenant);
      owner = { tenant, api: them, markers: [tenant.organization.id, `Theirs ${tag}`, `Tagline ${tag}`] };
      await them('PATCH', '/v1/organization/branding', { primaryColor: '#123456', brandTagline: `Tagline ${tag}` });
      theirIds = await createOwnedResources(owner);
      await raiseDebt(them, { debtorReferenceId: 'SHARED-REF', debtorEmail: 'their.debtor@example.com' });
      theirWorldBefore = await theirWorld();
    });
    after(async () => {
      await server.close();
    });

    it('has a resource factory for every {id} route, every list and every id filter', () => {
      const resources = routes.flatMap((r) => [idResourceOf(r), listResourceOf(r)]);
      const filtered = routes.flatMap(idFilters).map((name) => FILTER_RESOURCES[name] ?? `filter ${name}`);
      const uncovered = [...resources, ...filtered].filter((r) => r !== undefined && !(r in RESOURCE_FACTORIES));
      expect(uncovered, 'add a factory to test/support/tenant-resources.ts').to.deep.equal([]);
    });

    it('answers 404 not_found to every {id} route tried with the other organisation’s real id', async () => {
      for (const route of routes.filter((r) => idResourceOf(r))) {
        const id = theirIds.get(idResourceOf(route)!);
        expect(id, `no factory for ${routeName(route)}`).to.be.a('string');
        const res = await me(
          route.method.toUpperCase(),
          pathWithIds(route, (r) => theirIds.get(r)),
          exampleBody(route),
        );
        expect(res.status, `${routeName(route)}: ${res.text}`).to.equal(404);
        expectProblem(res, 404, 'not_found');
      }
    });

    it('never lists the other organisation’s resources, filtered by their ids or not', async () => {
      for (const route of routes.filter((r) => listResourceOf(r))) {
        const id = theirIds.get(listResourceOf(route)!);
        expect(id, `no factory for ${routeName(route)}`).to.be.a('string');
        const theirList = await them<Page>('GET', `${route.path}?limit=200`);
        expect(
          theirList.body.data.map((r) => r.id),
          `their own ${route.path}`,
        ).to.include(id);
        const paths = [
          route.path,
          ...idFilters(route).map((f) => `${route.path}?${f}=${theirId(FILTER_RESOURCES[f]!)}`),
        ];
        for (const path of paths) {
          const mineList = await me<Page>('GET', path);
          expect(mineList.status, path).to.equal(200);
          for (const value of theirs()) expect(mineList.text, path).to.not.contain(value);
        }
      }
    });

    it('never answers the other organisation’s singletons (organisation, branding, webhook configuration)', async () => {
      const singletons = routes.filter(isSingletonRead);
      expect(singletons.map((r) => r.path)).to.include.members(['/v1/organization', '/v1/webhooks']);
      for (const route of singletons) {
        const answer = await me('GET', route.path);
        expect(answer.status, route.path).to.equal(200);
        for (const value of theirs()) expect(answer.text, route.path).to.not.contain(value);
      }
    });

    it('lets every mutation without a path id act on the caller’s own organisation only', async () => {
      for (const route of routes.filter((r) => r.method !== 'get' && !idResourceOf(r))) {
        const name = routeName(route);
        const body = name in INTRUDER_BODIES ? INTRUDER_BODIES[name] : exampleBody(route);
        const answer = await me(route.method.toUpperCase(), route.path, body);
        expect(answer.status, `${name}: ${answer.text}`).to.be.below(500);
        for (const value of theirs()) expect(answer.text, name).to.not.contain(value);
      }
    });

    it('answers debtor_not_found when a debt names the other organisation’s debtor', async () => {
      const res = await me('POST', '/v1/debts', {
        debtorId: theirId('debtors'),
        originalPrincipal: 5,
        externalAccountId: 'A-1',
      });
      expectProblem(res, 400, 'debtor_not_found');
    });

    it('gives an inline debtor its own debtor even when the other organisation uses the same referenceId', async () => {
      const theirDebtor = (await them<Page>('GET', '/v1/debtors?referenceId=SHARED-REF')).body.data[0]!;
      const res = await me<Resource>('POST', '/v1/debts', inlineDebtBody({ debtorReferenceId: 'SHARED-REF' }));
      expect(res.status).to.equal(201);
      expect(res.body.debtorId).to.not.equal(theirDebtor.id);
      const byRef = await me<Page>('GET', '/v1/debtors?referenceId=SHARED-REF');
      expect(byRef.body.data.map((d) => d.id)).to.deep.equal([res.body.debtorId]);
      const byEmail = await me<Page>('GET', '/v1/debtors?email=their.debtor%40example.com');
      expect(byEmail.body).to.deep.equal({ data: [], nextCursor: null });
    });

    it('refuses another organisation’s cursor with 400, answering none of its rows', async () => {
      const theirFirst = await them<Page>('GET', '/v1/debts?limit=1');
      expect(theirFirst.body.nextCursor).to.be.a('string');
      const mineWithTheirCursor = await me<Page>('GET', `/v1/debts?cursor=${theirFirst.body.nextCursor}`);
      expectProblem(mineWithTheirCursor, 400, 'invalid_request');
      expect(mineWithTheirCursor.text).to.not.include(theirId('debts'));
    });

    it('reads and changes only the caller’s own branding', async () => {
      const patched = await me('PATCH', '/v1/organization/branding', { primaryColor: '#654321', brandTagline: '' });
      expect(patched.body).to.include({ primaryColor: '#654321', brandTagline: null });
      const theirBranding = await them('GET', '/v1/organization/branding');
      expect(theirBranding.body).to.include({ primaryColor: '#123456' });
    });

    it('is enforced by the database too: a debt cannot be stored against another organisation’s debtor', async () => {
      const insert = testDb()('debts').insert({
        id: newId(),
        organization_id: mine.organization.id,
        debtor_id: theirId('debtors'),
        external_account_id: 'A-1',
        original_principal: '1',
        outstanding_principal: '1',
        currency: 'AUD',
        status: 'PendingAssignment',
      });
      const err = await insert.then(
        () => undefined,
        (e: { code?: string }) => e,
      );
      expect(err).to.have.property('code', '23503'); // foreign_key_violation on (organization_id, debtor_id)
    });

    it('leaves everything the other organisation can read exactly as it was', async () => {
      const after = await theirWorld();
      for (const [route, before] of theirWorldBefore) expect(after.get(route), route).to.deep.equal(before);
    });
  });
}
