/**
 * The sandbox's inputs as the console reads them (api/routes/sandbox-input.ts): the simulation routes' own schemas and
 * conversions, so a form is accepted or refused exactly as the same JSON body sent to the API would be.
 */
import { expect } from 'chai';
import { ApiError } from '../../core/platform/errors';
import { readSignup, simulationReader } from '../../api/routes/sandbox-input';

const context = { currency: 'AUD', updateId: 'req_0123abcd' };
const refusal = (work: () => unknown): ApiError => {
  try {
    work();
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
};

describe('the sandbox inputs shared by the API and the console', () => {
  it('reads each simulation as its route does', () => {
    expect(simulationReader.read('accept', {}, context)).to.deep.equal({ action: 'accept' });
    expect(simulationReader.read('dispute', { reason: 'Paid in March' }, context)).to.deep.equal({
      action: 'dispute',
      reason: 'Paid in March',
    });
    const plan = { instalmentCount: 4, frequency: 'Monthly', firstDueDate: '2026-12-01' };
    expect(simulationReader.read('plan', { ...plan }, context)).to.deep.equal({ action: 'plan', plan });
    // The amount as written, exact; a payment named by none is named after the request, so a retry counts once.
    expect(simulationReader.read('payment', { amount: '312.50', status: 'Failed' }, context)).to.deep.equal({
      action: 'payment',
      payment: { amount: '312.5', processorReference: 'pi_sandbox_0123abcd', succeeded: false },
    });
    expect(simulationReader.read('advance', {}, context)).to.deep.equal({ action: 'advance', request: {} });
    expect(simulationReader.read('advance', { until: '2026-12-08' }, context)).to.deep.equal({
      action: 'advance',
      request: { until: '2026-12-09T00:00:00.000Z' },
    });
  });

  it('refuses what the routes refuse, naming the field as the API does', () => {
    const cases: [Parameters<typeof simulationReader.read>[0], Record<string, unknown>, string, RegExp][] = [
      ['dispute', { reason: '' }, 'body.reason', /must not be empty/],
      ['resolve', { outcome: 'maybe' }, 'body.outcome', /must be one of "rejected", "upheld"/],
      [
        'plan',
        { instalmentCount: 'three', frequency: 'Monthly', firstDueDate: '2026-12-01' },
        'body.instalmentCount',
        /whole number/,
      ],
      [
        'plan',
        { instalmentCount: 3, frequency: 'Monthly', firstDueDate: '01/12/2026' },
        'body.firstDueDate',
        /YYYY-MM-DD/,
      ],
      ['payment', { amount: '12.345' }, 'body.amount', /decimal/],
      ['payment', { amount: '-5' }, 'body.amount', /./],
    ];
    for (const [action, body, path, message] of cases) {
      const error = refusal(() => simulationReader.read(action, body, context));
      expect(error.code, JSON.stringify(body)).to.equal('invalid_request');
      const found = error.extra.errors?.find((e) => e.path === path);
      expect(found, `${action} ${JSON.stringify(body)}: ${JSON.stringify(error.extra.errors)}`).to.not.equal(undefined);
      expect(found!.message).to.match(message);
    }
  });

  it('reads a sign-up as POST /sandbox/signup does', () => {
    expect(readSignup({})).to.deep.equal({});
    expect(readSignup({ organizationName: 'Acme' })).to.deep.equal({ organizationName: 'Acme' });
    expect(refusal(() => readSignup({ organizationName: 'x'.repeat(201) })).extra.errors![0]!.path).to.equal(
      'body.organizationName',
    );
  });
});
