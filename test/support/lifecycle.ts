/** Drives core/lifecycle's changes directly against the test database, as the debt-lifecycle activity does. */
import type { Instalment } from '../../core/lifecycle/model';
import { expect } from 'chai';
import { createDebt } from '../../core/debts/debt-creation';
import { getDebt, type Debt } from '../../core/debts/debts';
import { listTransactions, type Transaction } from '../../core/debts/transactions';
import { toEventEnvelope, type EventEnvelope, type EventRow } from '../../core/events/outbox';
import { applyLifecycleChange } from '../../core/lifecycle/apply-change';
import type { ApplyChangeResult, LifecycleChange } from '../../core/lifecycle/model';
import { inlineDebtBody } from './debt-api';
import { testDb } from './resources';
import { createTestTenant } from './tenants';

/** The lifecycle's clock in these tests: plans are validated against this day. */
export const NOW = new Date('2026-01-15T09:30:00Z');

export interface LifecycleDebt {
  organizationId: string;
  debtId: string;
  /** Applies a change at the version last applied (or the one given) and tracks the version. */
  apply(change: LifecycleChange, expectedVersion?: number): Promise<ApplyChangeResult>;
  version(): number;
  debt(): Promise<Debt>;
  /** The events after `debt.created`, in the order they were written. */
  events(): Promise<EventEnvelope[]>;
  transactions(): Promise<Transaction[]>;
  /** Everything a change could write, to prove a refusal or a duplicate wrote nothing. */
  snapshot(): Promise<unknown>;
}

/** A fresh organisation with one debt raised through `createDebt` in a transaction, as POST /v1/debts does. */
export async function raiseLifecycleDebt(overrides: Record<string, unknown> = {}): Promise<LifecycleDebt> {
  const { organization } = await createTestTenant();
  const organizationId = organization.id;
  const created = await testDb().transaction((trx) =>
    createDebt(trx, organizationId, inlineDebtBody({ originalPrincipal: '1000', ...overrides })),
  );
  const debtId = created.id;
  let version = 0;

  const debt = async () => (await getDebt(testDb(), organizationId, debtId))!;
  const events = async () => {
    const rows = await testDb()<EventRow>('events').where({ organization_id: organizationId }).orderBy('seq');
    return rows.map(toEventEnvelope).slice(1);
  };
  const transactions = async () =>
    (await listTransactions(testDb(), organizationId, { debtId, page: { limit: 200 } })).data;

  return {
    organizationId,
    debtId,
    version: () => version,
    debt,
    events,
    transactions,
    async apply(change, expectedVersion = version) {
      const result = await applyLifecycleChange(testDb(), { debtId, expectedVersion, change }, { now: NOW });
      if (result.outcome === 'applied') version = result.state.version;
      return result;
    },
    async snapshot() {
      const row = await testDb()('debts').where({ id: debtId }).first();
      return { row, events: await events(), transactions: await transactions() };
    },
  };
}

/** Asserts the change was applied and returns the result. */
export function expectApplied(result: ApplyChangeResult): ApplyChangeResult {
  expect(result.outcome, JSON.stringify(result)).to.equal('applied');
  return result;
}

/** Asserts a refusal with this code and returns its detail. */
export function expectRefused(result: ApplyChangeResult, code: string): string {
  expect(result.outcome, JSON.stringify(result)).to.equal('refused');
  if (result.outcome !== 'refused') throw new Error('unreachable');
  expect(result.code).to.equal(code);
  return result.detail;
}

/** A monthly plan from 31 January 2026 (NOW is 15 January). */
export function monthlyPlan(instalmentCount: number): LifecycleChange {
  return { kind: 'agreePlan', request: { instalmentCount, frequency: 'Monthly', firstDueDate: '2026-01-31' } };
}

export function payment(amount: string, processorReference: string, succeeded = true): LifecycleChange {
  return { kind: 'payment', payment: { amount, processorReference, succeeded } };
}

/** The debt's instalment schedule as the row keeps it (the workflow's state holds only the next unpaid one). */
export async function planScheduleOf(debtId: string): Promise<Instalment[]> {
  const row = await testDb()('debts').where({ id: debtId }).first('plan_schedule');
  return row?.plan_schedule ?? [];
}
