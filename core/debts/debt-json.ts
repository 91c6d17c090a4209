/**
 * A debt as JSON text written by PostgreSQL (GET /v1/debts): the same bytes `JSON.stringify(toDebt(row))`
 * writes, field for field, so the list can send the page without shaping rows in Node.
 */
import { jsonObject, jsonTime, jsonValue } from '../platform/json-page';
import { CURRENCY_MINOR_UNITS } from './currencies';

/** The currency's minor units as a SQL CASE (2 unless listed). */
function minorUnitsSql(currencySql: string): string {
  const byUnits = new Map<number, string[]>();
  for (const [code, units] of CURRENCY_MINOR_UNITS) {
    if (units !== 2) byUnits.set(units, [...(byUnits.get(units) ?? []), code]);
  }
  const whens = [...byUnits].map(
    ([units, codes]) => `when ${currencySql} in (${codes.map((c) => `'${c}'`).join(',')}) then ${units}`,
  );
  return `case ${whens.join(' ')} else 2 end`;
}

/**
 * An amount as `toMoneyNumber` + JSON.stringify write it: rounded to the currency's minor unit (half away from zero,
 * as decimal.js's default), without trailing zeros. Amounts have at most 15 significant digits and 4 decimals, so a
 * double holds them exactly and JSON.stringify never writes an exponent for them.
 */
export function jsonMoney(amountSql: string, currencySql: string): string {
  return `coalesce(trim_scale(round(${amountSql}, ${minorUnitsSql(currencySql)}))::text, 'null')`;
}

/** The plan as `toPlan` shapes it: null unless its status, instalment amount and frequency are all set. */
function planJson(t: string): string {
  const plan = jsonObject([
    ['status', jsonValue(`${t}.plan_status`)],
    ['instalmentAmount', jsonMoney(`${t}.plan_instalment_amount`, `${t}.currency`)],
    ['frequency', jsonValue(`${t}.plan_frequency`)],
    ['instalmentCount', `coalesce(${t}.plan_instalment_count, 0)::text`],
    ['instalmentsPaid', `coalesce(${t}.plan_instalments_paid, 0)::text`],
    ['nextDueDate', jsonValue(`to_char(${t}.plan_next_due_date, 'YYYY-MM-DD')`)],
  ]);
  return `case when ${t}.plan_status is null or ${t}.plan_instalment_amount is null or ${t}.plan_frequency is null
    then 'null' else ${plan} end`;
}

/** The `Debt` of a `debts` row aliased `t`, as JSON text. */
export function debtJsonSql(t = 'debts'): string {
  return jsonObject([
    ['id', jsonValue(`${t}.id`)],
    ['debtorId', jsonValue(`${t}.debtor_id`)],
    ['externalAccountId', jsonValue(`${t}.external_account_id`)],
    ['clientReference', jsonValue(`${t}.client_reference`)],
    ['originalPrincipal', jsonMoney(`${t}.original_principal`, `${t}.currency`)],
    ['outstandingPrincipal', jsonMoney(`${t}.outstanding_principal`, `${t}.currency`)],
    ['currency', jsonValue(`${t}.currency`)],
    ['status', jsonValue(`${t}.status`)],
    ['disputeReason', jsonValue(`${t}.dispute_reason`)],
    ['disputeOutcome', jsonValue(`${t}.dispute_outcome`)],
    ['disputeResolvedAt', jsonTime(`${t}.dispute_resolved_at`)],
    ['plan', planJson(t)],
    // Stored as the text JSON.stringify wrote (core/debts/metadata.ts): sent as it is.
    ['metadata', `${t}.metadata::text`],
    ['createdAt', jsonTime(`${t}.created_at`)],
    ['updatedAt', jsonTime(`${t}.updated_at`)],
  ]);
}
