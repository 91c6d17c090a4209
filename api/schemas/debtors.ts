/** JSON Schemas and examples of the debtor routes. */
import { checkedByHandler, type JsonSchema } from '../http/route-definition';
import {
  E164_OR_EMPTY_PATTERN,
  E164_PATTERN,
  EMAIL_OR_EMPTY_PATTERN,
  EMAIL_PATTERN,
  EXAMPLE_CURSOR,
  metadataInputSchema,
  metadataPatchSchema,
  metadataQuerySchema,
  metadataSchema,
  pagedListSchema,
  pageQueryProperties,
  timestampSchema,
  uuidSchema,
} from './common';

/** Whether verification data is on file: the values themselves are never sent (docs/portal.md). */
const verificationSchema: JsonSchema = {
  type: 'object',
  required: ['dateOfBirth', 'postcode'],
  description:
    'Whether you supplied a date of birth and a postcode: the debtor portal asks for them to check it is the debtor ' +
    '(/docs/portal). Their values are never returned, here, in lists or in webhooks.',
  properties: {
    dateOfBirth: { type: 'boolean', description: 'A date of birth is on file.' },
    postcode: { type: 'boolean', description: 'A postcode is on file.' },
  },
};

/** After trimming, 2 to 10 letters, digits, spaces or hyphens (core/debts/debtor-verification.ts). */
const POSTCODE_PATTERN = '^\\s*[A-Za-z0-9-][A-Za-z0-9 -]{0,8}[A-Za-z0-9-]\\s*$';

/**
 * The verification data's input fields, checked by the handler (core/debts/debtor-verification.ts) so that every
 * problem is named in one 400. "" is accepted too (no value, or a PATCH's clear).
 */
export function dateOfBirthInput(description: string, nullable = false): JsonSchema {
  return checkedByHandler(
    { type: nullable ? ['string', 'null'] : 'string', maxLength: 10, description },
    { anyOf: [{ format: 'date' }, { const: '' }] },
  );
}

export function postcodeInput(description: string, nullable = false): JsonSchema {
  return checkedByHandler(
    { type: nullable ? ['string', 'null'] : 'string', maxLength: 32, description },
    { pattern: `^$|${POSTCODE_PATTERN}` },
  );
}

const DATE_OF_BIRTH_TEXT =
  'YYYY-MM-DD, a real date in the past, after 1900-01-01. Never returned: the portal asks the debtor for it.';
const POSTCODE_TEXT =
  'After trimming, 2 to 10 letters, digits, spaces or hyphens; compared ignoring case, spaces and hyphens. Never ' +
  'returned: the portal asks the debtor for it.';

export const debtorSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'referenceId',
    'firstName',
    'lastName',
    'email',
    'phone',
    'metadata',
    'verification',
    'createdAt',
    'updatedAt',
  ],
  properties: {
    id: uuidSchema,
    referenceId: { type: 'string', description: 'Your reference for the debtor; unique in your organisation.' },
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    email: { type: ['string', 'null'] },
    phone: { type: ['string', 'null'], description: 'E.164.' },
    metadata: metadataSchema,
    verification: verificationSchema,
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  },
};

export const debtorExample = {
  id: '01936f1e-7b10-7aa2-8c11-5d2e9f0a1b23',
  referenceId: 'DBR-001',
  firstName: 'Ava',
  lastName: 'Harris',
  email: 'ava.harris@example.com',
  phone: '+61412345678',
  metadata: { crmId: 'C-88213' },
  verification: { dateOfBirth: true, postcode: true },
  createdAt: '2026-11-22T08:00:00.000Z',
  updatedAt: '2026-11-22T08:00:00.000Z',
};

const name = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 200, description });

/** The contact rule is the handler's (`requireContact`), so its message names the fields. */
export const createDebtorBody: JsonSchema = checkedByHandler(
  {
    type: 'object',
    additionalProperties: false,
    required: ['referenceId', 'firstName', 'lastName'],
    description: 'A debtor needs `email` or `phone` (or both).',
    properties: {
      referenceId: name('Your reference for the debtor; must not be in use in your organisation.'),
      firstName: name('First name.'),
      lastName: name('Last name.'),
      email: { type: 'string', maxLength: 320, pattern: EMAIL_PATTERN, description: 'Email address.' },
      phone: { type: 'string', maxLength: 16, pattern: E164_PATTERN, description: 'E.164, e.g. +61412345678.' },
      dateOfBirth: dateOfBirthInput(`Optional. Date of birth, ${DATE_OF_BIRTH_TEXT}`),
      postcode: postcodeInput(`Optional. Postcode of the debtor's address. ${POSTCODE_TEXT}`),
      metadata: metadataInputSchema,
    },
    example: {
      referenceId: 'DBR-001',
      firstName: 'Ava',
      lastName: 'Harris',
      email: 'ava.harris@example.com',
      dateOfBirth: '1985-04-12',
      postcode: '3000',
    },
  },
  { anyOf: [{ required: ['email'] }, { required: ['phone'] }] },
);

/** Clearing both contacts at once can never leave one: the handler refuses it (and any clear of the last one). */
export const patchDebtorBody: JsonSchema = checkedByHandler(
  {
    type: 'object',
    additionalProperties: false,
    description:
      'Only the fields sent change; null leaves a field alone. An empty string clears `email`, `phone`, ' +
      '`dateOfBirth` or `postcode`, but a debtor always keeps `email` or `phone`.',
    properties: {
      referenceId: { ...name('Your reference; must not be in use by another debtor.'), type: ['string', 'null'] },
      firstName: { ...name('First name.'), type: ['string', 'null'] },
      lastName: { ...name('Last name.'), type: ['string', 'null'] },
      email: {
        type: ['string', 'null'],
        maxLength: 320,
        pattern: EMAIL_OR_EMPTY_PATTERN,
        description: 'Email address.',
      },
      phone: { type: ['string', 'null'], maxLength: 16, pattern: E164_OR_EMPTY_PATTERN, description: 'E.164.' },
      dateOfBirth: dateOfBirthInput(`Date of birth, ${DATE_OF_BIRTH_TEXT} An empty string clears it.`, true),
      postcode: postcodeInput(`Postcode. ${POSTCODE_TEXT} An empty string clears it.`, true),
      metadata: metadataPatchSchema,
    },
    example: { phone: '+61412345678', email: '' },
  },
  { not: { required: ['email', 'phone'], properties: { email: { const: '' }, phone: { const: '' } } } },
);

export const listDebtorsQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQueryProperties,
    referenceId: { type: 'string', maxLength: 200, description: 'Only the debtor with this reference.' },
    email: { type: 'string', maxLength: 320, description: 'Only debtors with this email (case-insensitive).' },
    metadata: metadataQuerySchema,
  },
};

export const debtorListSchema = pagedListSchema(debtorSchema);
export const debtorListExample = { data: [debtorExample], nextCursor: EXAMPLE_CURSOR };
