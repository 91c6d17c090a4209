import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { expectProblem } from '../support/debt-api';
import { exampleBody, pathWithId, routeName, tenantRoutes } from '../support/route-table';

describe('Request bodies are read only as application/json; any other type is 415 naming it', () => {
  const ctx = useApiSuite();
  const otherTypes = [
    'application/merge-patch+json',
    'application/vnd.api+json',
    'application/json-patch+json',
    'application/problem+json',
    'text/plain',
    'application/x-www-form-urlencoded',
  ];

  it('answers 415 unsupported_media_type naming application/json, on every route with a body', async () => {
    const routes = tenantRoutes(ctx.server.built.routes).filter((r) => r.body);
    expect(routes).to.not.be.empty;
    for (const route of routes) {
      for (const type of otherTypes) {
        const res = await fetch(`${ctx.server.baseUrl}${pathWithId(route, '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71')}`, {
          method: route.method.toUpperCase(),
          headers: { ...ctx.tenant.headers, 'content-type': type },
          body: JSON.stringify(exampleBody(route)),
        });
        const text = await res.text();
        const answer = {
          status: res.status,
          headers: res.headers,
          text,
          body: JSON.parse(text) as Record<string, unknown>,
        };
        const problem = expectProblem(answer, 415, 'unsupported_media_type');
        expect(problem.detail, `${routeName(route)} as ${type}`)
          .to.include('application/json')
          .and.include(type);
      }
    }
  });

  it('reads application/json with a charset parameter', async () => {
    const res = await fetch(`${ctx.server.baseUrl}/v1/organization/branding`, {
      method: 'PATCH',
      headers: { ...ctx.tenant.headers, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ primaryColor: '#112233' }),
    });
    expect(res.status, await res.text()).to.equal(200);
  });
});
