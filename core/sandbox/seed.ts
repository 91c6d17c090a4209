/**
 * Writes the sandbox's seeded dataset (seed-data.ts) into one organisation, in the caller's transaction: debtors,
 * debts with the columns of their lifecycle state (plan summary and schedule included) and their transactions.
 *
 * A seed is a fixture, not activity: it records no events, so it sends no webhooks and starts nothing through the
 * outbox. Each open debt's `debt-<id>` workflow is started afterwards by `startSeedWorkflows` (the workflow loads
 * its state from the row). Nothing here, or anywhere in the sandbox, notifies a debtor: the service has no
 * debtor-facing sender.
 *
 * Given a document store, two debts get a generated sample agreement (a real, small PDF) as an `Agreement` document:
 * an active one and the disputed one, which a creditor would answer with it.
 */
import { Readable } from 'node:stream';
import { sampleAgreementPdf } from '../documents/agreement-pdf';
import { recordDocument, storeDocumentObject } from '../documents/document-upload';
import type { DocumentStore } from '../documents/store';
import type { Trx } from '../platform/db';
import { newId } from '../platform/ids';
import { addAmounts, normalizeAmount, subtractAmounts } from '../debts/money';
import { allocatePayment, buildPlanSchedule, planProgress, todayUtc } from '../lifecycle/plan-schedule';
import type { Instalment } from '../lifecycle/model';
import { SEED_CURRENCY, SEED_DEBTORS, SEED_DEBTS, type SeedDebt, type SeedPayment } from './seed-data';

const DAY_MS = 86_400_000;

export interface SeededTenant {
  debtorIds: string[];
  debtIds: string[];
}

function daysBefore(asOf: Date, days: number): Date {
  return new Date(asOf.getTime() - days * DAY_MS);
}

function succeeded(payments: readonly SeedPayment[]): string[] {
  return payments.filter((p) => !p.failed).map((p) => p.amount);
}

/** The plan's columns: its schedule over the original principal, with the successful payments allocated in order. */
function planColumns(debt: SeedDebt, asOf: Date) {
  const plan = debt.plan;
  if (!plan) return {};
  const firstDueDate = todayUtc(daysBefore(asOf, -plan.firstDueInDays));
  const request = { frequency: plan.frequency, instalmentCount: plan.instalmentCount, firstDueDate };
  let schedule: Instalment[] = buildPlanSchedule(debt.originalPrincipal, SEED_CURRENCY, request);
  for (const amount of succeeded(debt.payments)) schedule = allocatePayment(schedule, amount).instalments;
  const progress = planProgress(schedule);
  return {
    plan_status: plan.status,
    plan_instalment_amount: schedule[0]!.amount,
    plan_frequency: plan.frequency,
    plan_instalment_count: plan.instalmentCount,
    plan_instalments_paid: progress.instalmentsPaid,
    plan_next_due_date: plan.status === 'Active' ? progress.nextDueDate : null,
    plan_schedule: JSON.stringify(schedule),
  };
}

async function insertDebtors(trx: Trx, organizationId: string, asOf: Date): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const rows = SEED_DEBTORS.map((debtor) => {
    const id = newId();
    ids.set(debtor.referenceId, id);
    const raised = Math.max(
      ...SEED_DEBTS.filter((d) => d.debtorReferenceId === debtor.referenceId).map((d) => d.raisedDaysAgo),
    );
    const createdAt = daysBefore(asOf, raised);
    return {
      id,
      organization_id: organizationId,
      reference_id: debtor.referenceId,
      first_name: debtor.firstName,
      last_name: debtor.lastName,
      email: debtor.email,
      phone: null,
      date_of_birth: debtor.dateOfBirth ?? null,
      postcode: debtor.postcode ?? null,
      created_at: createdAt,
      updated_at: createdAt,
    };
  });
  await trx('debtors').insert(rows);
  return ids;
}

async function insertDebt(trx: Trx, organizationId: string, debtorId: string, debt: SeedDebt, asOf: Date) {
  const id = newId();
  const paid = succeeded(debt.payments);
  const outstanding =
    paid.length === 0 ? debt.originalPrincipal : subtractAmounts(debt.originalPrincipal, addAmounts(...paid));
  await trx('debts').insert({
    id,
    organization_id: organizationId,
    debtor_id: debtorId,
    external_account_id: debt.externalAccountId,
    client_reference: null,
    original_principal: normalizeAmount(debt.originalPrincipal),
    outstanding_principal: normalizeAmount(outstanding),
    currency: SEED_CURRENCY,
    status: debt.status,
    dispute_reason: debt.disputeReason ?? null,
    dispute_outcome: debt.disputeOutcome ?? null,
    dispute_resolved_at: debt.disputeOutcome ? daysBefore(asOf, debt.changedDaysAgo) : null,
    ...planColumns(debt, asOf),
    created_at: daysBefore(asOf, debt.raisedDaysAgo),
    updated_at: daysBefore(asOf, debt.changedDaysAgo),
  });
  if (debt.payments.length > 0) {
    await trx('transactions').insert(
      debt.payments.map((payment, index) => ({
        id: newId(),
        organization_id: organizationId,
        debt_id: id,
        direction: 'Inbound' as const,
        status: payment.failed ? ('Failed' as const) : ('Succeeded' as const),
        type: 'Payment' as const,
        amount: normalizeAmount(payment.amount),
        currency: SEED_CURRENCY,
        processor_reference: `seed_${debt.externalAccountId}_${index + 1}`,
        created_at: daysBefore(asOf, payment.daysAgo),
        updated_at: daysBefore(asOf, payment.daysAgo),
      })),
    );
  }
  return id;
}

/** The seeded debts that carry the sample agreement. */
export const AGREEMENT_DEBTS = ['ACCT-0002', 'ACCT-0005'] as const;

async function attachAgreements(
  trx: Trx,
  documents: DocumentStore,
  organizationId: string,
  debtIds: Map<string, string>,
): Promise<void> {
  for (const account of AGREEMENT_DEBTS) {
    const debt = SEED_DEBTS.find((d) => d.externalAccountId === account);
    const debtor = SEED_DEBTORS.find((d) => d.referenceId === debt?.debtorReferenceId);
    const debtId = debtIds.get(account);
    if (!debt || !debtor || !debtId) throw new Error(`seed agreement names unknown debt ${account}`);
    const pdf = sampleAgreementPdf({
      externalAccountId: account,
      debtorName: `${debtor.firstName} ${debtor.lastName}`,
    });
    const object = await storeDocumentObject(documents, organizationId, Readable.from([pdf]));
    await recordDocument(trx, organizationId, debtId, object, {
      fileName: `agreement-${account}.pdf`,
      kind: 'Agreement',
      description: 'Signed credit agreement (sandbox sample)',
    });
  }
}

/**
 * Seeds one (empty) organisation as of `asOf`; returns the ids it wrote. With `documents`, two debts get the sample
 * agreement (its objects are stored before the transaction commits: a rollback leaves orphans for the sweep).
 */
export async function seedTenant(
  trx: Trx,
  organizationId: string,
  asOf: Date,
  documents?: DocumentStore,
): Promise<SeededTenant> {
  const debtorIds = await insertDebtors(trx, organizationId, asOf);
  const debtIds: string[] = [];
  for (const debt of SEED_DEBTS) {
    const debtorId = debtorIds.get(debt.debtorReferenceId);
    if (!debtorId)
      throw new Error(`seed debt ${debt.externalAccountId} names unknown debtor ${debt.debtorReferenceId}`);
    debtIds.push(await insertDebt(trx, organizationId, debtorId, debt, asOf));
  }
  if (documents) {
    const byAccount = new Map(SEED_DEBTS.map((debt, i) => [debt.externalAccountId, debtIds[i]!]));
    await attachAgreements(trx, documents, organizationId, byAccount);
  }
  return { debtorIds: [...debtorIds.values()], debtIds };
}
