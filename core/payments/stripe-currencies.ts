/**
 * Stripe's own currency rules (https://docs.stripe.com/currencies), which are not ISO 4217's minor units: the one
 * table both directions use, the PaymentIntent's `amount` we send and the amount we check in Stripe's webhook.
 *
 * - Zero-decimal currencies: the amount is in whole units (MGA is 2 decimals in ISO, 0 at Stripe; UGX is 0 in both).
 * - Three-decimal currencies: thousandths, and the last digit must be 0 (Stripe's partners take hundredths only).
 * - ISK: ISO gives it no decimals, but Stripe's API keeps two for backwards compatibility and takes only whole
 *   krónur, so the amount is krónur × 100 (divisible by 100).
 * - HUF and TWD: two decimals for charges (Stripe's whole-unit rule for them applies to payouts, which we never make).
 * - Any other currency Stripe charges: two decimals. A currency Stripe does not take is refused before we ask it.
 *
 * An amount Stripe cannot represent exactly (10.005 KWD) is refused, never rounded: money is not changed silently.
 */
import Decimal from 'decimal.js';

/** Stripe's zero-decimal currencies (its published list). */
const ZERO_DECIMAL = 'BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF'.split(' ');

/** Three-decimal currencies whose amounts must end in 0. */
const THREE_DECIMAL = 'BHD JOD KWD OMR TND'.split(' ');

/**
 * Stripe's presentment currencies for cards, as far as our ISO table has them (BTN, CUP, ERN, IQD, IRR, KPW, LYD,
 * MRU, SDG, SSP, STN, SVC, SYP, TMT, VED, VES and ZWG are not among them). A currency missing here is refused with
 * a clear page rather than sent to Stripe to fail.
 */
const CHARGEABLE = new Set(
  (
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BWP BYN BZD CAD CDF CHF ' +
    'CLP CNY COP CRC CVE CZK DJF DKK DOP DZD EGP ETB EUR FJD FKP GBP GEL GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ' +
    'ILS INR ISK JMD JOD JPY KES KGS KHR KMF KRW KWD KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MUR ' +
    'MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR ' +
    'SEK SGD SHP SLE SOS SRD SZL THB TJS TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VND VUV WST XAF XCD XCG XOF ' +
    'XPF YER ZAR ZMW'
  ).split(' '),
);

export interface StripeCurrencyRule {
  /** Digits after the decimal point in Stripe's `amount` (1 major unit = 10^exponent). */
  exponent: number;
  /** Stripe's `amount` must be a multiple of this (10 for three-decimal currencies, 100 for ISK). */
  multipleOf: number;
}

/** Stripe's rule for an ISO code (upper case), or null when Stripe does not charge in it. */
export function stripeCurrencyRule(currency: string): StripeCurrencyRule | null {
  if (!CHARGEABLE.has(currency)) return null;
  if (ZERO_DECIMAL.includes(currency)) return { exponent: 0, multipleOf: 1 };
  if (THREE_DECIMAL.includes(currency)) return { exponent: 3, multipleOf: 10 };
  if (currency === 'ISK') return { exponent: 2, multipleOf: 100 };
  return { exponent: 2, multipleOf: 1 };
}

export type StripeAmount =
  | { ok: true; amount: number }
  | { ok: false; reason: 'currency_not_supported' }
  /** `step`: the smallest amount Stripe can charge in the currency, as a decimal ("0.01" KWD, "1" MGA). */
  | { ok: false; reason: 'amount_not_representable'; step: string };

/** The smallest amount Stripe charges in a currency it takes, as a decimal string. */
function stepOf(rule: StripeCurrencyRule): Decimal {
  return new Decimal(rule.multipleOf).div(new Decimal(10).pow(rule.exponent));
}

/** A decimal amount (our canonical string) as Stripe's integer `amount`, or why Stripe cannot take it. */
export function toStripeAmount(amount: string, currency: string): StripeAmount {
  const rule = stripeCurrencyRule(currency);
  if (!rule) return { ok: false, reason: 'currency_not_supported' };
  const minor = new Decimal(amount).times(new Decimal(10).pow(rule.exponent));
  if (!minor.isInteger() || !minor.mod(rule.multipleOf).isZero()) {
    return { ok: false, reason: 'amount_not_representable', step: stepOf(rule).toFixed() };
  }
  return { ok: true, amount: minor.toNumber() };
}

/** Stripe's integer `amount` as our decimal string (the webhook's direction); null for a currency Stripe lacks. */
export function fromStripeAmount(amount: number, currency: string): string | null {
  const rule = stripeCurrencyRule(currency);
  if (!rule || !Number.isSafeInteger(amount)) return null;
  return new Decimal(amount).div(new Decimal(10).pow(rule.exponent)).toFixed();
}
