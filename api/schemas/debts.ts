/** JSON Schemas and examples of the debt routes; the same objects validate requests and build /openapi/v1.json. */
import {
  CLIENT_SETTABLE_STATUSES,
  DEBT_STATUSES,
  DISPUTE_OUTCOMES,
  PLAN_FREQUENCIES,
  PLAN_STATUSES,
} from '../../core/debts/debt-status';
import { CURRENCY_MINOR_UNITS } from '../../core/debts/currencies';
import { INLINE_FIELDS } from '../../core/debts/debt-creation';
import { checkedByHandler, type JsonSchema } from '../http/route-definition';
import {
  E164_OR_EMPTY_PATTERN,
  EMAIL_OR_EMPTY_PATTERN,
  EXAMPLE_CURSOR,
  metadataInputSchema,
  metadataPatchSchema,
  metadataQuerySchema,
  metadataSchema,
  moneyInputSchema,
  moneySchema,
  NOT_BLANK_PATTERN,
  pagedListSchema,
  pageQueryProperties,
  timestampSchema,
  uuidSchema,
} from './common';
import { dateOfBirthInput, postcodeInput } from './debtors';

const planSchema: JsonSchema = {
  type: ['object', 'null'],
  description:
    'The instalment plan the debtor agreed (the latest one), or null when none was agreed. The balance is split into ' +
    '`instalmentCount` instalments, the last absorbing the rounding; payments go to the oldest unpaid instalment. An ' +
    'instalment still unpaid 7 days after the end of its due date (UTC) defaults the plan. See /docs/lifecycle.',
  required: ['status', 'instalmentAmount', 'frequency', 'instalmentCount', 'instalmentsPaid', 'nextDueDate'],
  properties: {
    status: {
      type: 'string',
      enum: [...PLAN_STATUSES],
      description:
        '`Active`: running. `Completed`: paid in full (the debt is `Settled`). `Defaulted`: an instalment went unpaid ' +
        'past its grace period (the debt is `InArrears`). `Cancelled`: the debt was disputed, recalled or written ' +
        'off while the plan ran.',
    },
    instalmentAmount: moneySchema('Amount of each instalment but the last, which absorbs the rounding.'),
    frequency: { type: 'string', enum: [...PLAN_FREQUENCIES] },
    instalmentCount: { type: 'integer', minimum: 1 },
    instalmentsPaid: { type: 'integer', minimum: 0, description: 'Instalments paid in full.' },
    nextDueDate: {
      type: ['string', 'null'],
      format: 'date',
      description: 'Due date (YYYY-MM-DD) of the oldest instalment not paid in full; null once the plan ended.',
    },
  },
};

const STATUS_DESCRIPTION =
  'The debt lifecycle (/docs/lifecycle): `PendingAssignment` raised, the debtor has not engaged; `Accepted` the ' +
  'debtor acknowledged it; `Active` an instalment plan is running; `InArrears` the plan defaulted; `Disputed` the ' +
  'debtor disputes it (`disputeReason`); and the final `Settled` (paid in full), `WrittenOff` (dispute upheld, or ' +
  'written off by operations) and `Closed` (recalled by you).';

export const debtSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'debtorId',
    'externalAccountId',
    'clientReference',
    'originalPrincipal',
    'outstandingPrincipal',
    'currency',
    'status',
    'disputeReason',
    'disputeOutcome',
    'disputeResolvedAt',
    'plan',
    'metadata',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: uuidSchema,
    debtorId: uuidSchema,
    externalAccountId: { type: 'string', description: 'Your own account reference.' },
    clientReference: { type: ['string', 'null'], description: 'Your own free-form reference.' },
    originalPrincipal: moneySchema('The principal raised.'),
    outstandingPrincipal: moneySchema('What remains to be paid.'),
    currency: { type: 'string', description: 'ISO 4217 code.' },
    status: { type: 'string', enum: [...DEBT_STATUSES], description: STATUS_DESCRIPTION },
    disputeReason: {
      type: ['string', 'null'],
      description:
        'The debtor’s reason for the latest dispute: set when the debt is disputed and kept after the dispute is ' +
        'resolved (`disputeOutcome` says how it ended); null if the debt was never disputed.',
    },
    disputeOutcome: {
      type: ['string', 'null'],
      enum: [...DISPUTE_OUTCOMES, null],
      description:
        'How the latest dispute was resolved: `Upheld` (the debt was written off) or `Rejected` (the debt went back ' +
        'to `PendingAssignment`); null while it is open or if there was none.',
    },
    disputeResolvedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the latest dispute was resolved (ISO 8601, UTC); null while open or if there was none.',
    },
    plan: planSchema,
    metadata: metadataSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
};

/** `debt.updated`'s `previousAttributes`: any of the debt's fields but `updatedAt`, with its value before the change. */
export const debtPreviousAttributesSchema: JsonSchema = {
  type: 'object',
  description:
    'The fields the change changed, each with its value before the change (a plan or `metadata` as the whole ' +
    'object it was). Fields the change left alone are absent; `updatedAt` is never listed.',
  properties: Object.fromEntries(
    Object.entries(debtSchema.properties as Record<string, JsonSchema>).filter(([name]) => name !== 'updatedAt'),
  ),
};

export const debtExample = {
  id: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
  debtorId: '01936f1e-7b10-7aa2-8c11-5d2e9f0a1b23',
  externalAccountId: 'ACCT-0001',
  clientReference: 'INV-2026-0042',
  originalPrincipal: 1250.5,
  outstandingPrincipal: 1250.5,
  currency: 'AUD',
  status: 'PendingAssignment',
  disputeReason: null,
  disputeOutcome: null,
  disputeResolvedAt: null,
  plan: null,
  metadata: { crmId: 'C-88213' },
  createdAt: '2026-11-22T08:00:00.000Z',
  updatedAt: '2026-11-22T08:00:00.000Z',
};

const text = (description: string, maxLength = 200): JsonSchema => ({ type: 'string', maxLength, description });

const notBlank: JsonSchema = { pattern: NOT_BLANK_PATTERN };

/**
 * `debtorId`, the reference of one of your debtors alone, or the inline debtor: exactly one of the three
 * (core/debts/debt-creation.ts `chooseDebtor`).
 */
const debtorChoice: JsonSchema[] = [
  {
    title: 'An existing debtor by your reference',
    required: ['debtorReferenceId'],
    properties: {
      debtorId: false,
      debtorReferenceId: notBlank,
      ...Object.fromEntries(INLINE_FIELDS.filter((f) => f !== 'debtorReferenceId').map((f) => [f, false])),
    },
  },
  {
    title: 'An existing debtor',
    required: ['debtorId'],
    properties: Object.fromEntries(INLINE_FIELDS.map((field) => [field, false])),
  },
  {
    title: 'An inline debtor',
    required: ['debtorReferenceId', 'debtorFirstName', 'debtorLastName'],
    properties: { debtorId: false, debtorReferenceId: notBlank, debtorFirstName: notBlank, debtorLastName: notBlank },
    anyOf: [
      { required: ['debtorEmail'], properties: { debtorEmail: { minLength: 1 } } },
      { required: ['debtorPhone'], properties: { debtorPhone: { minLength: 1 } } },
    ],
  },
];

/** The debtor, `externalAccountId` and the principal are checked by the handler, so the spec's codes answer. */
const createDebtFields: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    'Send `debtorId`, or `debtorReferenceId` alone for one of your debtors, or the inline debtor ' +
    '(`debtorReferenceId`, `debtorFirstName`, `debtorLastName` and `debtorEmail` and/or `debtorPhone`, optionally ' +
    '`debtorDateOfBirth` and `debtorPostcode`); none of ' +
    'these, or a reference alone that none of your debtors has, is `missing_debtor`. `originalPrincipal` and ' +
    '`externalAccountId` are required (`invalid_principal`, `missing_external_account_id`).',
  properties: {
    debtorId: checkedByHandler(text('An existing debtor of your organisation; else `debtor_not_found`.', 64), {
      format: 'uuid',
    }),
    debtorReferenceId: text(
      'Inline debtor: your reference for the debtor. If one of your debtors has it, that debtor is used as it is.',
    ),
    debtorFirstName: text('Inline debtor: first name.'),
    debtorLastName: text('Inline debtor: last name.'),
    debtorEmail: {
      ...text('Inline debtor: email address (this or `debtorPhone`).', 320),
      pattern: EMAIL_OR_EMPTY_PATTERN,
    },
    debtorPhone: {
      ...text('Inline debtor: phone number in E.164 form, e.g. +61412345678.', 16),
      pattern: E164_OR_EMPTY_PATTERN,
    },
    debtorDateOfBirth: dateOfBirthInput(
      'Inline debtor, optional: date of birth, YYYY-MM-DD, a real date in the past, after 1900-01-01. Never ' +
        'returned; the debtor portal asks for it (/docs/portal).',
    ),
    debtorPostcode: postcodeInput(
      'Inline debtor, optional: postcode; after trimming, 2 to 10 letters, digits, spaces or hyphens. Never ' +
        'returned; the debtor portal asks for it (/docs/portal).',
    ),
    originalPrincipal: moneyInputSchema('Required. The principal owed.', 1250.5),
    currency: checkedByHandler(
      {
        type: 'string',
        pattern: '^[A-Z]{3}$',
        description: 'ISO 4217 code; default `AUD`. An unknown code is `invalid_request`.',
      },
      { enum: [...CURRENCY_MINOR_UNITS.keys()] },
    ),
    externalAccountId: text(
      'Required. Your own account reference for the debt; one open debt per account (`external_account_id_in_use`).',
    ),
    clientReference: text('Optional free-form reference of yours.'),
    metadata: metadataInputSchema,
  },
  example: {
    debtorReferenceId: 'DBR-001',
    debtorFirstName: 'Ava',
    debtorLastName: 'Harris',
    debtorEmail: 'ava.harris@example.com',
    originalPrincipal: 1250.5,
    currency: 'AUD',
    externalAccountId: 'ACCT-1001',
    metadata: { crmId: 'C-88213' },
  },
};

export const createDebtBody = checkedByHandler(createDebtFields, {
  required: ['originalPrincipal', 'externalAccountId'],
  properties: { externalAccountId: notBlank },
  oneOf: debtorChoice,
});

export const patchDebtBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    'Only the fields sent change; a field sent with its current value is no change. Each change emits `debt.updated`.',
  properties: {
    externalAccountId: checkedByHandler(
      text('Your account reference; cannot be emptied (`missing_external_account_id`).'),
      notBlank,
    ),
    clientReference: text('Your free-form reference; an empty string clears it.'),
    originalPrincipal: moneyInputSchema(
      'Only while `PendingAssignment` (else `invalid_state`); the outstanding principal moves by the same amount.',
      1300,
    ),
    status: {
      type: 'string',
      enum: [...CLIENT_SETTABLE_STATUSES],
      description: '`Closed` recalls the debt; allowed from any non-terminal state, else `invalid_state`.',
    },
    metadata: metadataPatchSchema,
  },
  example: { externalAccountId: 'ACCT-0001-B', originalPrincipal: 1300 },
};

export const listDebtsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    status: { type: 'string', enum: [...DEBT_STATUSES], description: 'Only debts in this state.' },
    debtorId: { ...uuidSchema, description: 'Only this debtor’s debts.' },
    externalAccountId: { type: 'string', maxLength: 200, description: 'Only debts with this account reference.' },
    clientReference: { type: 'string', maxLength: 200, description: 'Only debts with this reference of yours.' },
    createdAfter: { ...timestampSchema, description: 'Only debts raised strictly after this moment (ISO 8601).' },
    createdBefore: { ...timestampSchema, description: 'Only debts raised strictly before this moment (ISO 8601).' },
    metadata: metadataQuerySchema,
  },
};

export const debtListSchema = pagedListSchema(debtSchema);
export const debtListExample = { data: [debtExample], nextCursor: EXAMPLE_CURSOR };
