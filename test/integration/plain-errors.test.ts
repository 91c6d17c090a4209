/**
 * Errors in plain words: every 400 the schema finds says what is wrong in a client's words and
 * names the field, never the validator's idiom; an operation that takes no body accepts `{}` and an empty body; a
 * read-only key is refused before its body is read.
 */
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { callerFor, expectProblem, raiseDebt } from '../support/debt-api';
import { createTestTenant } from '../support/tenants';

/** Phrases of ajv's own messages, which a client should never have to decode. */
const VALIDATOR_IDIOMS =
  /must NOT|must match|schema|anyOf|oneOf|must be (string|integer|number|object|array)\b|>=|<=|properties/;

type Problem = { detail: string; errors?: { path: string; message: string }[] };

describe('errors in plain words', function () {
  this.timeout(30_000);
  const ctx = useApiSuite({ mode: 'sandbox' });

  it('says what is wrong with each field in words, naming the field', async () => {
    const debt = await raiseDebt(ctx.api);
    const cases: [string, string, unknown, string, RegExp][] = [
      ['PATCH', `/v1/debts/${debt.id}`, { status: 'Open' }, 'body.status', /must be one of/],
      ['POST', '/v1/debts', { debtorId: 5, originalPrincipal: 10, externalAccountId: 'A' }, 'body.debtorId', /must be/],
      ['GET', '/v1/debts?createdAfter=yesterday', undefined, 'query.createdAfter', /ISO 8601 date and time/],
      ['GET', '/v1/debts?status=Lost', undefined, 'query.status', /must be one of "PendingAssignment"/],
      ['GET', '/v1/debts?limit=0', undefined, 'query.limit', /must be at least 1/],
      ['PUT', '/v1/webhooks', { url: 5 }, 'body.url', /must be a string/],
      ['POST', `/v1/sandbox/debts/${debt.id}/dispute`, { reason: '' }, 'body.reason', /must not be empty/],
      ['POST', `/v1/sandbox/debts/${debt.id}/dispute`, { reason: 'x', extra: 1 }, 'body.extra', /not a recognised/],
    ];
    for (const [method, path, body, field, message] of cases) {
      const problem = expectProblem(await ctx.api(method, path, body), 400, 'invalid_request') as Problem;
      const where = `${method} ${path}`;
      expect(problem.errors, where).to.be.an('array').that.is.not.empty;
      const named = problem.errors!.find((e) => e.path === field);
      expect(named, `${where}: ${JSON.stringify(problem.errors)}`).to.not.equal(undefined);
      expect(named!.message, where).to.match(message);
      for (const e of problem.errors!) expect(e.message, where).to.not.match(VALIDATOR_IDIOMS);
      expect(problem.detail, where).to.not.match(VALIDATOR_IDIOMS);
    }
  });

  it('accepts {} and an empty body on an operation that takes none', async () => {
    for (const body of ['{}', undefined]) {
      const debt = await raiseDebt(ctx.api);
      const res = await ctx.api('POST', `/v1/sandbox/debts/${debt.id}/accept`, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).to.equal(200);
    }
  });

  it('refuses a read-only key with 403 read_only_key before reading its body, malformed or not', async () => {
    const reader = callerFor(ctx.server.baseUrl, await createTestTenant({ mode: 'sandbox', readOnly: true }));
    expectProblem(await reader('POST', '/v1/debts', '{not json'), 403, 'read_only_key');
    expectProblem(await reader('POST', '/v1/debts', { nonsense: true }), 403, 'read_only_key');
  });
});
