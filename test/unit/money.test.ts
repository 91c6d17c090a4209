import { expect } from 'chai';
import { CURRENCY_MINOR_UNITS } from '../../core/debts/currencies';
import { ApiError } from '../../core/platform/errors';
import { numberSourceText, parseJsonKeepingNumberText } from '../../core/debts/json-numbers';
import {
  addAmounts,
  parseAmount,
  parseCurrency,
  parsePrincipal,
  subtractAmounts,
  toMoneyNumber,
} from '../../core/debts/money';

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('money', () => {
  it('sums 0.1 + 0.2 to exactly 0.3 and writes it to JSON as 0.3', () => {
    expect(0.1 + 0.2).to.not.equal(0.3); // the float trap this module exists to avoid
    const sum = addAmounts(parsePrincipal(0.1, 'AUD'), parsePrincipal('0.2', 'AUD'));
    expect(sum).to.equal('0.3');
    expect(JSON.stringify({ amount: toMoneyNumber(sum, 'AUD') })).to.equal('{"amount":0.3}');
  });

  it('keeps many small amounts exact: ten thousand payments of 0.01 are exactly 100', () => {
    const total = addAmounts(...Array.from({ length: 10_000 }, () => '0.01'));
    expect(total).to.equal('100');
    expect(subtractAmounts('100', '99.99')).to.equal('0.01');
  });

  it('round-trips the largest accepted amounts (15 significant digits) through JSON unchanged', () => {
    for (const [text, currency] of [
      ['9999999999999.99', 'AUD'],
      ['999999999999.999', 'BHD'],
      ['999999999999999', 'JPY'],
      ['1234567890123.45', 'USD'],
    ] as const) {
      const amount = parsePrincipal(JSON.parse(text), currency);
      expect(amount).to.equal(text);
      expect(JSON.stringify(toMoneyNumber(amount, currency))).to.equal(text);
    }
  });

  it('writes stored NUMERIC amounts (padded to four places) with the currency’s digits at most', () => {
    expect(JSON.stringify([toMoneyNumber('1250.5000', 'AUD'), toMoneyNumber('125000.0000', 'JPY')])).to.equal(
      '[1250.5,125000]',
    );
    expect(toMoneyNumber('1.2345', 'BHD')).to.equal(1.235); // never stored; the guard still honours the precision
  });

  it('accepts JPY whole amounts only', () => {
    expect(parsePrincipal(1250, 'JPY')).to.equal('1250');
    expect(parsePrincipal('1250.0', 'JPY')).to.equal('1250');
    const err = rejection(() => parsePrincipal(1250.5, 'JPY'));
    expect(err.code).to.equal('invalid_principal');
    expect(err.extra.errors).to.deep.equal([
      { path: 'body.originalPrincipal', message: 'must have at most 0 decimal places in JPY' },
    ]);
  });

  it('accepts three decimals in BHD but not four, and not three in AUD', () => {
    expect(parsePrincipal(1.234, 'BHD')).to.equal('1.234');
    expect(JSON.stringify(toMoneyNumber('1.2340', 'BHD'))).to.equal('1.234');
    expect(rejection(() => parsePrincipal('1.2345', 'BHD')).code).to.equal('invalid_principal');
    expect(rejection(() => parsePrincipal(10.001, 'AUD')).code).to.equal('invalid_principal');
  });

  it('rejects zero, negative, non-numeric, NaN, Infinity, hex and over-precise amounts as invalid_principal', () => {
    const bad: unknown[] = [0, -0, '0.00', -5, '-0.01', 'abc', '', ' 12', '12 ', '1,000', 'NaN', 'Infinity', NaN];
    bad.push(Infinity, '0x10', '1e400', 1e16, '12345678901234.56', true, null, undefined, {}, []);
    for (const value of bad) {
      expect(rejection(() => parsePrincipal(value, 'AUD')).code, JSON.stringify(value)).to.equal('invalid_principal');
    }
  });

  it('reports a bad non-principal amount as invalid_request naming its own field', () => {
    expect(parseAmount('12.50', 'AUD', 'amount')).to.equal('12.5');
    const err = rejection(() => parseAmount('12.505', 'AUD', 'amount'));
    expect(err.code).to.equal('invalid_request');
    expect(err.extra.errors).to.deep.equal([
      { path: 'body.amount', message: 'must have at most 2 decimal places in AUD' },
    ]);
  });

  it('reads exponent forms and trailing zeros by value', () => {
    expect(parsePrincipal('1e3', 'AUD')).to.equal('1000');
    expect(parsePrincipal('1.5E2', 'AUD')).to.equal('150');
    expect(parsePrincipal('100.000', 'AUD')).to.equal('100');
  });

  it('judges a JSON number by its source text, not by the double JSON.parse made of it', () => {
    const body = '{"note":"12.345 and \\"originalPrincipal\\": 7","originalPrincipal":0.1000000000000000055511}';
    const parsed = JSON.parse(body) as { originalPrincipal: number };
    expect(parsed.originalPrincipal).to.equal(0.1); // the digits are gone after JSON.parse
    const text = numberSourceText(body, 'originalPrincipal', parsed.originalPrincipal);
    expect(text).to.equal('0.1000000000000000055511');
    expect(rejection(() => parsePrincipal(text, 'AUD')).code).to.equal('invalid_principal');
    expect(numberSourceText(body, 'originalPrincipal', '0.1')).to.equal(undefined);
    expect(parseJsonKeepingNumberText('{"a":[1,-2.5e3,{"b":"3"}],"c":null}')).to.deep.equal({
      a: ['1', '-2.5e3', { b: '3' }],
      c: null,
    });
  });

  it('knows the ISO 4217 minor units of the common and the unusual currencies', () => {
    const expected = { AUD: 2, USD: 2, EUR: 2, GBP: 2, NZD: 2, JPY: 0, KRW: 0, BHD: 3, KWD: 3, JOD: 3, OMR: 3, TND: 3 };
    for (const [code, units] of Object.entries(expected)) expect(CURRENCY_MINOR_UNITS.get(code), code).to.equal(units);
    expect(CURRENCY_MINOR_UNITS.size).to.be.greaterThan(150);
    for (const code of CURRENCY_MINOR_UNITS.keys()) expect(code).to.match(/^[A-Z]{3}$/);
  });

  it('defaults the currency to AUD and rejects unknown codes as invalid_request', () => {
    expect(parseCurrency(undefined)).to.equal('AUD');
    expect(parseCurrency('NZD')).to.equal('NZD');
    for (const code of ['XYZ', 'aud', 'XAU', '']) {
      const err = rejection(() => parseCurrency(code));
      expect(err.code).to.equal('invalid_request');
      expect(err.extra.errors?.[0]?.path).to.equal('body.currency');
    }
  });
});
