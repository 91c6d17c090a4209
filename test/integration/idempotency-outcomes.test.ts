import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useApiSuite } from '../support/api-suite';
import { expectProblem, inlineDebtBody, raiseDebt } from '../support/debt-api';
import { testDb } from '../support/resources';

/**
 * Which answers an Idempotency-Key keeps (docs/idempotency.md): a 400 about the request's own input is never saved,
 * so a corrected retry with the same key is processed; business outcomes (404, 409) are saved and replayed.
 */
describe('Idempotency: input refusals are not saved, business outcomes are', () => {
  const ctx = useApiSuite();
  const withKey = (key: string) => ({ 'idempotency-key': key });

  const refusedThenCorrected: {
    name: string;
    method: string;
    path: string;
    bad: unknown;
    good: unknown;
    code: string;
  }[] = [
    {
      name: 'invalid_principal (found by the handler)',
      method: 'POST',
      path: '/v1/debts',
      bad: inlineDebtBody({ originalPrincipal: '1.234' }),
      good: inlineDebtBody(),
      code: 'invalid_principal',
    },
    {
      name: 'missing_debtor',
      method: 'POST',
      path: '/v1/debts',
      bad: { originalPrincipal: 10, externalAccountId: 'ACCT-1' },
      good: inlineDebtBody(),
      code: 'missing_debtor',
    },
    {
      name: 'debtor_not_found',
      method: 'POST',
      path: '/v1/debts',
      bad: { debtorId: randomUUID(), originalPrincipal: 10, externalAccountId: 'ACCT-1' },
      good: inlineDebtBody(),
      code: 'debtor_not_found',
    },
    {
      name: 'invalid_color',
      method: 'PATCH',
      path: '/v1/organization/branding',
      bad: { primaryColor: 'red' },
      good: { primaryColor: '#112233' },
      code: 'invalid_color',
    },
    {
      name: 'invalid_url',
      method: 'PUT',
      path: '/v1/webhooks',
      bad: { url: 'http://127.0.0.1/hooks' },
      good: { url: 'https://93.184.215.14/hooks' },
      code: 'invalid_url',
    },
    {
      name: 'invalid_request from the schema',
      method: 'POST',
      path: '/v1/debts',
      bad: inlineDebtBody({ unknownField: 1 }),
      good: inlineDebtBody(),
      code: 'invalid_request',
    },
  ];

  for (const c of refusedThenCorrected) {
    it(`does not save a 400 ${c.name}: the corrected retry with the same key is processed`, async () => {
      const key = randomUUID();
      expectProblem(await ctx.api(c.method, c.path, c.bad, withKey(key)), 400, c.code);
      const corrected = await ctx.api(c.method, c.path, c.good, withKey(key));
      expect(corrected.status, corrected.text).to.be.oneOf([200, 201]);
      expect(corrected.headers.get('idempotent-replayed')).to.equal(null);
      const again = await ctx.api(c.method, c.path, c.good, withKey(key));
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
    });
  }

  it('saves a 409 invalid_state and replays it for the same request', async () => {
    const debt = await raiseDebt(ctx.api);
    await testDb()('debts').where({ id: debt.id }).update({ status: 'Settled' });
    const key = randomUUID();
    const recall = () => ctx.api('PATCH', `/v1/debts/${debt.id}`, { status: 'Closed' }, withKey(key));
    const first = expectProblem(await recall(), 409, 'invalid_state');
    await testDb()('debts').where({ id: debt.id }).update({ status: 'Accepted' }); // would now succeed
    const replay = await recall();
    expectProblem(replay, 409, 'invalid_state');
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(first);
  });

  it('saves a 404 not_found and replays it, even once the resource would exist', async () => {
    const key = randomUUID();
    const path = `/v1/webhooks/deliveries/${randomUUID()}/retry`;
    expectProblem(await ctx.api('POST', path, undefined, withKey(key)), 404, 'not_found');
    const replay = await ctx.api('POST', path, undefined, withKey(key));
    expectProblem(replay, 404, 'not_found');
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
  });

  it('saves a 409 no_webhook_configured and replays it', async () => {
    const key = randomUUID();
    expectProblem(await ctx.api('POST', '/v1/webhooks/test', undefined, withKey(key)), 409, 'no_webhook_configured');
    const replay = await ctx.api('POST', '/v1/webhooks/test', undefined, withKey(key));
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
  });
});
