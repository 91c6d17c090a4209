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

export const debtorSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'referenceId', 'firstName', 'lastName', 'email', 'phone', 'metadata', 'createdAt', 'updatedAt'],
  properties: {
    id: uuidSchema,
    referenceId: { type: 'string', description: 'Your reference for the debtor; unique in your organisation.' },
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    email: { type: ['string', 'null'] },
    phone: { type: ['string', 'null'], description: 'E.164.' },
    metadata: metadataSchema,
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
      metadata: metadataInputSchema,
    },
    example: { referenceId: 'DBR-001', firstName: 'Ava', lastName: 'Harris', email: 'ava.harris@example.com' },
  },
  { anyOf: [{ required: ['email'] }, { required: ['phone'] }] },
);

/** Clearing both contacts at once can never leave one: the handler refuses it (and any clear of the last one). */
export const patchDebtorBody: JsonSchema = checkedByHandler(
  {
    type: 'object',
    additionalProperties: false,
    description:
      'Only the fields sent change; null leaves a field alone. An empty string clears `email` or `phone`, ' +
      'but a debtor always keeps one of them.',
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
