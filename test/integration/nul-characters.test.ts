import net from 'node:net';
import { expect } from 'chai';
import type { RouteDefinition } from '../../api/http/route-definition';
import { useApiSuite } from '../support/api-suite';
import { expectProblem } from '../support/debt-api';
import { exampleBody, pathWithId, routeName, tenantRoutes } from '../support/route-table';

const NUL = '\u0000';

/** The example body with one string field (top-level or nested) given `char`; one variant per string field. */
function bodiesWith(char: string, example: unknown, path: string[] = []): { path: string; body: unknown }[] {
  if (typeof example === 'string') return [{ path: path.join('.'), body: `a${char}b` }];
  if (example === null || typeof example !== 'object') return [];
  const entries = Object.entries(example as Record<string, unknown>);
  return entries.flatMap(([name, value]) =>
    bodiesWith(char, value, [...path, name]).map((variant) => ({
      path: variant.path,
      body: Array.isArray(example)
        ? Object.assign([...(example as unknown[])], { [name]: variant.body })
        : { ...example, [name]: variant.body },
    })),
  );
}

const queryNames = (route: RouteDefinition) => Object.keys(route.query?.properties ?? {});

// Each host's own route table: the sandbox's adds its simulation routes (`/v1/sandbox/debts/{id}/…`).
for (const mode of ['production', 'sandbox'] as const) {
  describe(`A NUL or another control character in any string is 400 invalid_request naming the field, on every route (${mode})`, () => {
    const ctx = useApiSuite({ mode });
    const idOf = '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71';

    // NUL, which PostgreSQL text cannot hold, and U+0001, the character the portal layout's slots were once cut on.
    for (const [char, message] of [
      [NUL, 'must not contain a NUL character'],
      ['\u0001', 'must not contain a control character (U+0001)'],
    ] as const) {
      it(`${message}: in any string field of any body`, async () => {
        const routes = tenantRoutes(ctx.server.built.routes).filter((r) => r.body);
        expect(routes).to.not.be.empty;
        for (const route of routes) {
          const variants = bodiesWith(char, exampleBody(route));
          expect(variants, routeName(route)).to.not.be.empty;
          for (const { path, body } of variants) {
            const answer = await ctx.api(route.method.toUpperCase(), pathWithId(route, idOf), body);
            const problem = expectProblem(answer, 400, 'invalid_request');
            expect(problem.errors, `${routeName(route)} body.${path}`).to.deep.include({
              path: `body.${path}`,
              message,
            });
          }
        }
      });
    }

    it('any other control character too (escape, DEL, C1), and nothing is written', async () => {
      for (const [char, code] of [
        ['\u001b', '001B'],
        ['\u007f', '007F'],
        ['\u0085', '0085'],
        ['\u009f', '009F'],
      ]) {
        const reference = `CTRL-${code}-${Date.now()}`;
        const answer = await ctx.api('POST', '/v1/debtors', {
          referenceId: reference,
          firstName: `Ava${char}`,
          lastName: 'Harris',
        });
        expect(expectProblem(answer, 400, 'invalid_request').errors).to.deep.include({
          path: 'body.firstName',
          message: `must not contain a control character (U+${code})`,
        });
        const listed = await ctx.api('GET', `/v1/debtors?referenceId=${reference}`);
        expect(JSON.stringify(listed.body)).to.not.contain(reference);
      }
    });

    it('in a field name of a body', async () => {
      const answer = await ctx.api('POST', '/v1/debtors', { [`name${NUL}`]: 'x' });
      expect(expectProblem(answer, 400, 'invalid_request').errors).to.deep.include({
        path: 'body',
        message: 'must not contain a NUL character in a field name',
      });
    });

    it('in any query parameter of any list', async () => {
      const routes = tenantRoutes(ctx.server.built.routes).filter((r) => queryNames(r).length > 0);
      expect(routes).to.not.be.empty;
      for (const route of routes) {
        for (const name of queryNames(route)) {
          const answer = await ctx.api('GET', `${pathWithId(route, idOf)}?${name}=a%00b`);
          const problem = expectProblem(answer, 400, 'invalid_request');
          expect(problem.errors, `${routeName(route)} ?${name}`).to.deep.include({
            path: `query.${name}`,
            message: 'must not contain a NUL character',
          });
        }
      }
    });

    it('in a header: refused with a 400 problem document naming the header, before any route runs', async () => {
      const url = new URL(ctx.server.baseUrl);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(url.port), url.hostname, () => {
          socket.write(
            `POST /v1/debtors HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${ctx.tenant.headers.authorization}\r\n` +
              `Idempotency-Key: a${NUL}b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
          );
        });
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      expect(head).to.match(/^HTTP\/1\.1 400 /);
      expect(head.toLowerCase()).to.include('content-type: application/problem+json');
      const problem = JSON.parse(body) as Record<string, unknown>;
      expect(problem).to.include({ title: 'invalid_request', status: 400 });
      expect(problem.errors).to.deep.equal([
        { path: 'header.Idempotency-Key', message: 'must not contain a NUL character' },
      ]);
    });
  });
}
