import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, inlineDebtBody } from '../support/debt-api';
import { idFilters, listResourceOf, routeName, tenantRoutes } from '../support/route-table';

const cursorOf = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');

describe('Query parameters and headers accept only their plain forms', () => {
  const ctx = useApiSuite();
  const lists = () => tenantRoutes(ctx.server.built.routes).filter((r) => listResourceOf(r));

  it('takes limit only as a plain decimal integer, on every list', async () => {
    expect(lists()).to.not.be.empty;
    for (const route of lists()) {
      for (const limit of ['1e2', '0x10', ' 5 ', '5.0', '+5', '', '5abc', '0b11', '1_0']) {
        const answer = await ctx.api('GET', `${route.path}?limit=${encodeURIComponent(limit)}`);
        const problem = expectProblem(answer, 400, 'invalid_request');
        expect(JSON.stringify(problem.errors), `${routeName(route)} limit=${limit}`).to.include('query.limit');
      }
      expect((await ctx.api('GET', `${route.path}?limit=5`)).status, routeName(route)).to.equal(200);
    }
  });

  it('refuses a non-canonical id in every id filter', async () => {
    const id = randomUUID();
    for (const route of lists()) {
      for (const name of idFilters(route)) {
        for (const bad of [`urn:uuid:${id}`, `{${id}}`, id.replace(/-/g, ''), ` ${id}`, `${id}\n`]) {
          const answer = await ctx.api('GET', `${route.path}?${name}=${encodeURIComponent(bad)}`);
          const problem = expectProblem(answer, 400, 'invalid_request');
          expect(JSON.stringify(problem.errors), `${routeName(route)} ${name}=${bad}`).to.include(`query.${name}`);
        }
      }
    }
  });

  it('refuses malformed cursors and cursors whose time PostgreSQL cannot hold, on every list', async () => {
    const i = randomUUID();
    const bad = [
      'not a cursor',
      cursorOf({ l: 'debts', t: '+275760-09-13T00:00:00.000Z', i }),
      cursorOf({ l: 'debts', t: '0000-01-01T00:00:00.000Z', i }),
      cursorOf({ l: 'debts', t: '-000001-01-01T00:00:00.000Z', i }),
      cursorOf({ l: 'debts', t: '2026-02-30T00:00:00.000Z', i }),
      cursorOf({ l: 'debts', t: 'Tue, 01 Dec 2026 00:00:00 GMT', i }),
      cursorOf({ l: 'debts', t: 1_700_000_000_000, i }),
      cursorOf([]),
      cursorOf(null),
      `${cursorOf({ l: 'debts', t: new Date().toISOString(), i })}.x`,
    ];
    for (const route of lists()) {
      for (const cursor of bad) {
        const answer = await ctx.api('GET', `${route.path}?cursor=${encodeURIComponent(cursor)}`);
        expect(answer.status, `${routeName(route)} cursor ${cursor}: ${answer.text}`).to.equal(400);
        expectProblem(answer, 400, 'invalid_request');
      }
    }
  });

  it('refuses an empty Idempotency-Key with 400 and does not act', async () => {
    const answer = await ctx.api('POST', '/v1/debts', inlineDebtBody(), { 'idempotency-key': '' });
    const problem = expectProblem(answer, 400, 'invalid_request');
    expect(JSON.stringify(problem.errors)).to.include('header.Idempotency-Key');
    const debts = await ctx.api<{ data: unknown[] }>('GET', '/v1/debts');
    expect(debts.body.data).to.deep.equal([]);
  });
});
