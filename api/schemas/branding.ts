/** JSON Schemas and examples of the branding routes. */
import { BRANDING_FIELDS } from '../../core/branding/branding';
import { checkedByHandler, type JsonSchema } from '../http/route-definition';
import { E164_OR_EMPTY_PATTERN, EMAIL_OR_EMPTY_PATTERN } from './common';

/** core/branding/branding.ts `HEX_COLOR`. */
const HEX_COLOR_PATTERN = '^#[0-9A-Fa-f]{6}$';

const nullableText = (description: string): JsonSchema => ({ type: ['string', 'null'], description });

export const brandingSchema: JsonSchema = {
  type: 'object',
  // Every answer carries every field (null when not set): core's list, in its order, and `updatedAt`.
  required: [...BRANDING_FIELDS, 'updatedAt'],
  description: 'Null fields are not set; the debtor portal then uses its default.',
  properties: {
    primaryColor: nullableText('`#RRGGBB`.'),
    secondaryColor: nullableText('`#RRGGBB`.'),
    logoUrl: nullableText('Absolute https URL.'),
    faviconUrl: nullableText('Absolute https URL.'),
    brandTagline: nullableText('At most 140 characters.'),
    supportEmail: nullableText('Shown to debtors.'),
    supportPhone: nullableText('E.164; shown to debtors.'),
    statementFooter: nullableText('Printed at the foot of statements.'),
    updatedAt: { type: ['string', 'null'], format: 'date-time', description: 'Null until branding is first set.' },
  },
};

export const brandingExample = {
  primaryColor: '#0B5FFF',
  secondaryColor: '#111827',
  logoUrl: 'https://cdn.acme-lending.example/logo.svg',
  faviconUrl: 'https://cdn.acme-lending.example/favicon.ico',
  brandTagline: 'Fair, flexible repayments',
  supportEmail: 'support@acme-lending.example',
  supportPhone: '+61290000000',
  statementFooter: 'Acme Lending Pty Ltd · ABN 12 345 678 901',
  updatedAt: '2026-11-22T08:00:00.000Z',
};

/** Colours and URLs are checked by the handler so that the spec's `invalid_color` / `invalid_url` answer. */
export const patchBrandingBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    'Merge: only non-null fields change. An empty string clears `logoUrl`, `faviconUrl`, `brandTagline`, ' +
    '`supportEmail`, `supportPhone` or `statementFooter`; colours cannot be cleared.',
  properties: {
    primaryColor: checkedByHandler(nullableText('`#RRGGBB`, else `invalid_color`.'), { pattern: HEX_COLOR_PATTERN }),
    secondaryColor: checkedByHandler(nullableText('`#RRGGBB`, else `invalid_color`.'), { pattern: HEX_COLOR_PATTERN }),
    logoUrl: checkedByHandler(nullableText('Absolute https URL, else `invalid_url`; "" clears.'), { maxLength: 2048 }),
    faviconUrl: checkedByHandler(nullableText('Absolute https URL, else `invalid_url`; "" clears.'), {
      maxLength: 2048,
    }),
    brandTagline: { ...nullableText('At most 140 characters; "" clears.'), maxLength: 140 },
    supportEmail: { ...nullableText('Email address; "" clears.'), maxLength: 320, pattern: EMAIL_OR_EMPTY_PATTERN },
    supportPhone: { ...nullableText('E.164; "" clears.'), maxLength: 16, pattern: E164_OR_EMPTY_PATTERN },
    statementFooter: { ...nullableText('"" clears.'), maxLength: 1000 },
  },
  example: { primaryColor: '#0B5FFF', logoUrl: 'https://cdn.acme-lending.example/logo.svg', brandTagline: '' },
};
