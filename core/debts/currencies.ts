/**
 * ISO 4217 currencies a debt may be raised in, with their minor units (digits after the decimal point).
 * Circulating currencies only: fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals, SDR and
 * the testing codes (X…) are left out, as are codes withdrawn from the standard (HRK, CUC, SLL, ZWL, VEF…).
 */
const MINOR_UNITS_0 = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF'.split(' ');

const MINOR_UNITS_3 = 'BHD IQD JOD KWD LYD OMR TND'.split(' ');

const MINOR_UNITS_2 = (
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY ' +
  'COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS ' +
  'INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR ' +
  'MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD ' +
  'SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG'
).split(' ');

export const CURRENCY_MINOR_UNITS: ReadonlyMap<string, number> = new Map([
  ...MINOR_UNITS_0.map((code) => [code, 0] as const),
  ...MINOR_UNITS_2.map((code) => [code, 2] as const),
  ...MINOR_UNITS_3.map((code) => [code, 3] as const),
]);

export const DEFAULT_CURRENCY = 'AUD';

/** Minor units of a known currency; throws for an unknown one (callers validate with `parseCurrency` first). */
export function minorUnits(code: string): number {
  const units = CURRENCY_MINOR_UNITS.get(code);
  if (units === undefined) throw new Error(`unknown currency ${code}`);
  return units;
}
