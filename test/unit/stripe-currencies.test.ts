import { expect } from 'chai';
import { CURRENCY_MINOR_UNITS } from '../../core/debts/currencies';
import { fromStripeAmount, stripeCurrencyRule, toStripeAmount } from '../../core/payments/stripe-currencies';

describe('Stripe’s currency table (not ISO 4217’s minor units)', () => {
  it('converts each class both ways: zero-decimal, two-decimal, three-decimal, ISK', () => {
    const cases: [string, string, number][] = [
      ['MGA', '5000', 5000],
      ['UGX', '25000', 25000],
      ['JPY', '1200', 1200],
      ['AUD', '150.25', 15025],
      ['HUF', '1500.5', 150050],
      ['TWD', '300.1', 30010],
      ['KWD', '10.25', 10250],
      ['ISK', '1200', 120000],
    ];
    for (const [currency, amount, stripe] of cases) {
      expect(toStripeAmount(amount, currency), currency).to.deep.equal({ ok: true, amount: stripe });
      expect(fromStripeAmount(stripe, currency), currency).to.equal(amount);
    }
  });

  it('refuses what Stripe cannot represent instead of rounding it, naming the step', () => {
    expect(toStripeAmount('10.005', 'KWD')).to.deep.equal({
      ok: false,
      reason: 'amount_not_representable',
      step: '0.01',
    });
    expect(toStripeAmount('0.5', 'ISK')).to.deep.include({ reason: 'amount_not_representable', step: '1' });
    expect(toStripeAmount('10.5', 'MGA')).to.deep.include({ reason: 'amount_not_representable', step: '1' });
    expect(toStripeAmount('10.001', 'AUD')).to.deep.include({ reason: 'amount_not_representable' });
  });

  it('refuses currencies Stripe does not charge; every currency a debt may take has an answer', () => {
    for (const code of ['IQD', 'LYD', 'IRR', 'KPW', 'SYP']) {
      expect(stripeCurrencyRule(code), code).to.equal(null);
      expect(toStripeAmount('1', code), code).to.deep.equal({ ok: false, reason: 'currency_not_supported' });
      expect(fromStripeAmount(100, code), code).to.equal(null);
    }
    const chargeable = [...CURRENCY_MINOR_UNITS.keys()].filter((code) => stripeCurrencyRule(code) !== null);
    expect(chargeable.length).to.be.greaterThan(120);
  });
});
