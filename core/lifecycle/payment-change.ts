/**
 * A payment reported by the processor (DECISIONS.md §3). A reference already recorded
 * with the same outcome counts once (`duplicate`, checked first, so the payment that settled a debt may be reported
 * again after it is Settled). A successful payment records an Inbound/Succeeded Payment transaction, lowers the
 * balance, pays the plan's oldest unpaid instalments, and settles the debt (plan Completed) when nothing is left;
 * one above the balance is refused. A failed payment records an Inbound/Failed Payment transaction and nothing else.
 */
import { nextStatus, isTerminal } from '../debts/debt-status';
import { rowAmounts } from '../debts/debts';
import {
  compareAmounts,
  isPositiveAmount,
  normalizeAmount,
  parseAmount,
  subtractAmounts,
  toMoneyNumber,
} from '../debts/money';
import { recordTransaction, type TransactionStatus } from '../debts/transactions';
import { ApiError } from '../platform/errors';
import type { Trx } from '../platform/db';
import type { LifecycleRow } from './lifecycle-row';
import type { PaymentReport } from './model';
import { allocatePayment, planProgress } from './plan-schedule';
import {
  refused,
  refusedInState,
  type ChangeDecision,
  type DebtColumnChanges,
  type DecisionContext,
} from './change-effects';

/** Whether the debt already has a Payment with this processor reference and outcome. */
async function paymentRecorded(
  trx: Trx,
  row: LifecycleRow,
  reference: string,
  status: TransactionStatus,
): Promise<boolean> {
  const found = await trx('transactions')
    .where({ organization_id: row.organization_id, debt_id: row.id, type: 'Payment', processor_reference: reference })
    .where({ status })
    .first('id');
  return found !== undefined;
}

/** The amount as a canonical decimal, or the refusal's detail. */
function paymentAmount(amount: unknown, currency: string): string | { detail: string } {
  try {
    return parseAmount(amount, currency, 'amount');
  } catch (err) {
    if (err instanceof ApiError) return { detail: err.message };
    throw err;
  }
}

/** The plan's columns after a payment: its instalments paid oldest first, Completed when the balance is cleared. */
function planAfterPayment(row: LifecycleRow, amount: string, cleared: boolean): DebtColumnChanges {
  if (row.plan_status !== 'Active') return {};
  const changes: DebtColumnChanges = {};
  // A plan written before schedules existed has none: its summary columns are left as they were.
  if (row.plan_schedule && row.plan_schedule.length > 0) {
    const { instalments } = allocatePayment(row.plan_schedule, amount);
    const progress = planProgress(instalments);
    Object.assign(changes, {
      plan_schedule: JSON.stringify(instalments),
      plan_instalments_paid: progress.instalmentsPaid,
      plan_next_due_date: progress.nextDueDate,
    });
  }
  if (cleared) Object.assign(changes, { plan_status: 'Completed', plan_next_due_date: null });
  return changes;
}

function money(amount: string, currency: string): string {
  return `${toMoneyNumber(amount, currency)} ${currency}`;
}

export async function decidePayment({ trx, row }: DecisionContext, payment: PaymentReport): Promise<ChangeDecision> {
  const reference = payment.processorReference;
  if (typeof reference !== 'string' || reference.trim() === '') {
    return refused('invalid_request', 'A payment needs its processorReference.');
  }
  const status: TransactionStatus = payment.succeeded ? 'Succeeded' : 'Failed';
  if (await paymentRecorded(trx, row, reference, status)) return { outcome: 'duplicate' };
  if (isTerminal(row.status)) return refusedInState(row, 'Recording a payment');
  const amount = paymentAmount(payment.amount, row.currency);
  if (typeof amount !== 'string') return refused('invalid_request', amount.detail);

  const record = (transactionStatus: TransactionStatus) =>
    recordTransaction(trx, row.organization_id, {
      debtId: row.id,
      direction: 'Inbound',
      status: transactionStatus,
      type: 'Payment',
      amount,
      processorReference: reference,
    });
  if (!payment.succeeded) return { outcome: 'apply', effect: { changes: {}, payment: await record('Failed') } };

  const { outstanding } = rowAmounts(row);
  if (compareAmounts(amount, outstanding) > 0) {
    return refused(
      'invalid_request',
      `The payment of ${money(amount, row.currency)} exceeds the outstanding principal of ` +
        `${money(outstanding, row.currency)}; it was not recorded.`,
    );
  }
  const left = subtractAmounts(outstanding, amount);
  const cleared = !isPositiveAmount(left);
  const to = nextStatus(row.status, cleared ? 'paymentClearsBalance' : 'paymentLeavesBalance');
  if (to === null) return refusedInState(row, 'Recording a payment');
  const changes: DebtColumnChanges = {
    outstanding_principal: normalizeAmount(left),
    ...(to !== row.status ? { status: to } : {}),
    ...planAfterPayment(row, amount, cleared),
  };
  return { outcome: 'apply', effect: { changes, event: 'payment.received', payment: await record('Succeeded') } };
}
