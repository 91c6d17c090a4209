/**
 * JSON Schemas and examples of the sandbox's simulation routes (`/v1/sandbox/debts/{id}/…`). The plan's limits are
 * the lifecycle's own (core/lifecycle/plan-schedule.ts); what only the debt's state can judge (a first due date before
 * today, instalments smaller than a cent, an overpayment) is refused by the lifecycle with the same `invalid_request`.
 */
import { PLAN_FREQUENCIES } from '../../core/debts/debt-status';
import { MAX_FIRST_DUE_DAYS, MAX_INSTALMENTS } from '../../core/lifecycle/plan-schedule';
import type { JsonSchema } from '../http/route-definition';
import { NOT_BLANK_PATTERN, POSITIVE_DECIMAL_PATTERN } from './common';
import { debtExample } from './debts';

export const DISPUTE_REASON_MAX_LENGTH = 1000;
export const PROCESSOR_REFERENCE_MAX_LENGTH = 200;

export const disputeBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['reason'],
  properties: {
    reason: {
      type: 'string',
      minLength: 1,
      maxLength: DISPUTE_REASON_MAX_LENGTH,
      pattern: NOT_BLANK_PATTERN,
      description: 'The debtor’s words, shown as the debt’s `disputeReason`.',
    },
  },
  example: { reason: 'I already paid this in March.' },
};

export const resolveDisputeBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['outcome'],
  properties: {
    outcome: {
      type: 'string',
      enum: ['rejected', 'upheld'],
      description:
        '`rejected`: the dispute is resolved against the debtor and the debt is `PendingAssignment` again. ' +
        '`upheld`: the debtor is right and the debt is `WrittenOff`.',
    },
  },
  example: { outcome: 'rejected' },
};

export const planBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['instalmentCount', 'frequency', 'firstDueDate'],
  description:
    'The plan the debtor agrees: the outstanding principal split into `instalmentCount` instalments, the last ' +
    'absorbing the rounding (see /docs/lifecycle).',
  properties: {
    instalmentCount: { type: 'integer', minimum: 1, maximum: MAX_INSTALMENTS, description: 'How many instalments.' },
    frequency: { type: 'string', enum: [...PLAN_FREQUENCIES] },
    firstDueDate: {
      type: 'string',
      format: 'date',
      description:
        `The first instalment’s due date (YYYY-MM-DD): today (UTC) or up to ${MAX_FIRST_DUE_DAYS} days later. Each ` +
        'instalment must be at least the currency’s minor unit; else `invalid_request`.',
    },
  },
  example: { instalmentCount: 6, frequency: 'Monthly', firstDueDate: '2026-12-01' },
};

export const paymentBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: {
    amount: {
      anyOf: [
        { type: 'number', exclusiveMinimum: 0 },
        { type: 'string', maxLength: 64, pattern: POSITIVE_DECIMAL_PATTERN },
      ],
      description:
        'The amount the debtor paid, in the debt’s currency: a JSON number (read exactly as written) or a decimal ' +
        'string, greater than zero, with no more decimal places than the currency has. A successful payment above ' +
        'the outstanding principal is refused with `invalid_request`.',
      example: 208.41,
    },
    status: {
      type: 'string',
      enum: ['Succeeded', 'Failed'],
      default: 'Succeeded',
      description:
        'What the processor reports: `Succeeded` (default) pays the debt; `Failed` records a `Failed` transaction ' +
        'and changes nothing else.',
    },
    processorReference: {
      type: 'string',
      minLength: 1,
      maxLength: PROCESSOR_REFERENCE_MAX_LENGTH,
      pattern: NOT_BLANK_PATTERN,
      description:
        'The processor’s id of the payment; one is made up when omitted. A reference already reported with the ' +
        'same status counts once, as the real processor’s retries do.',
    },
  },
  example: { amount: 208.41, processorReference: 'pi_sandbox_0001' },
};

/** The debt at each step of the cookbook's walk (docs/sandbox.md), for the responses' examples. */
export const activePlan = {
  status: 'Active',
  instalmentAmount: 208.41,
  frequency: 'Monthly',
  instalmentCount: 6,
  instalmentsPaid: 0,
  nextDueDate: '2026-12-01',
};
export const simulationExamples = {
  accepted: { ...debtExample, status: 'Accepted', updatedAt: '2026-11-23T09:00:00.000Z' },
  disputed: {
    ...debtExample,
    status: 'Disputed',
    disputeReason: 'I already paid this in March.',
    updatedAt: '2026-11-23T09:05:00.000Z',
  },
  resolved: {
    ...debtExample,
    status: 'PendingAssignment',
    disputeReason: 'I already paid this in March.',
    disputeOutcome: 'Rejected',
    disputeResolvedAt: '2026-11-23T09:07:00.000Z',
    updatedAt: '2026-11-23T09:07:00.000Z',
  },
  planned: { ...debtExample, status: 'Active', plan: activePlan, updatedAt: '2026-11-23T09:10:00.000Z' },
  paid: {
    ...debtExample,
    status: 'Active',
    outstandingPrincipal: 1042.09,
    plan: { ...activePlan, instalmentsPaid: 1, nextDueDate: '2027-01-01' },
    updatedAt: '2026-11-23T09:12:00.000Z',
  },
  defaulted: {
    ...debtExample,
    status: 'InArrears',
    outstandingPrincipal: 1042.09,
    plan: { ...activePlan, status: 'Defaulted', instalmentsPaid: 1, nextDueDate: '2027-01-01' },
    updatedAt: '2026-11-23T09:15:00.000Z',
  },
};
