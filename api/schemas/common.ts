/** Schema pieces shared by every resource's schemas (one file per resource in this folder). */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../core/platform/pagination';
import { checkedByHandler, type JsonSchema } from '../http/route-definition';

/** `limit` and `cursor`, the query of every list (spec §4). */
export const pageQueryProperties: Record<string, JsonSchema> = {
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `Page size, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.`,
    example: 50,
  },
  cursor: {
    type: 'string',
    maxLength: 512,
    description:
      'The `nextCursor` of the previous page, sent with the same filters (only `limit` may change); omit for the ' +
      'first page. A cursor of another list, organisation or filters is `400 invalid_request`.',
  },
};

export type PageQuery = {
  limit: number;
  cursor?: string;
};

export const uuidSchema: JsonSchema = { type: 'string', format: 'uuid' };
export const timestampSchema: JsonSchema = { type: 'string', format: 'date-time', description: 'ISO 8601, UTC.' };

/** Path `{id}`: any string, so that an id of the wrong form is simply not found (404), like an unknown one. */
export const idParams: JsonSchema = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', description: 'The resource id (a UUID).' } },
};

/**
 * The characters JavaScript's `\s` and String.prototype.trim treat as space, spelled out: other regex engines
 * (Python's, which fuzzers and client generators use) give `\s` and `\S` other meanings, e.g. \x1c-\x1f.
 */
const SPACE_CLASS = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is the messaging system's concern. */
export const EMAIL_PATTERN = `^[^${SPACE_CLASS}@]+@[^${SPACE_CLASS}@]+\\.[^${SPACE_CLASS}@]+$`;
/** E.164: +, a country code that does not start with 0, at most 15 digits in all. */
export const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';

/** The same patterns, also accepting "" (which clears the field in a PATCH). */
export const EMAIL_OR_EMPTY_PATTERN = `^$|${EMAIL_PATTERN}`;
export const E164_OR_EMPTY_PATTERN = `^$|${E164_PATTERN}`;

/** Holds a character that String.prototype.trim keeps: not blank the way handlers test it. */
export const NOT_BLANK_PATTERN = `[^${SPACE_CLASS}]`;

/** A decimal string greater than zero, in the JSON number grammar (core/debts/money.ts reads it). */
export const POSITIVE_DECIMAL_PATTERN =
  '^([0-9]*[1-9][0-9]*(\\.[0-9]+)?|[0-9]+\\.[0-9]*[1-9][0-9]*)([eE][+-]?[0-9]+)?$';

/** An amount sent by the client: a JSON number or a decimal string; its rules are checked with the spec's code. */
export function moneyInputSchema(description: string, example: number): JsonSchema {
  return {
    anyOf: [
      checkedByHandler({ type: 'number' }, { exclusiveMinimum: 0 }),
      checkedByHandler({ type: 'string', maxLength: 64 }, { pattern: POSITIVE_DECIMAL_PATTERN }),
    ],
    description:
      `${description} A JSON number (read exactly as written) or a decimal string, greater than zero, with no ` +
      'more decimal places than the currency has and at most 15 significant digits; else `invalid_principal`.',
    example,
  };
}

/** An amount in a response: a JSON number with no more decimal places than the currency has. */
export function moneySchema(description: string): JsonSchema {
  return { type: 'number', description: `${description} Exact; at most the currency's minor-unit decimals.` };
}

/** `{ data: [...], nextCursor }` (DECISIONS.md §2). */
export function pagedListSchema(item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['data', 'nextCursor'],
    properties: {
      data: { type: 'array', items: item },
      nextCursor: {
        type: ['string', 'null'],
        description: 'Pass as `cursor` for the next page; null on the last page.',
      },
    },
  };
}

export const EXAMPLE_CURSOR =
  'eyJsIjoiZGVidHMiLCJ0IjoiMjAyNi0xMS0yMlQwODowMDowMC4wMDBaIiwiaSI6IjAxOTM2ZjFlLThhNTItN2MxZC05YTVlLTNmMGI2YzJkNGU3MSJ9.' +
  'Qm9dX2kR7vLp0sTe';

const METADATA_RULES =
  'Up to 50 keys of at most 40 characters, each with a string value of at most 500 characters. Yours to use: we ' +
  'never read it. Do not put sensitive data (card numbers, passwords) in it.';

/** `metadata` as answered: always an object, `{}` when nothing is set. */
export const metadataSchema: JsonSchema = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: `Your own key-value data. ${METADATA_RULES}`,
  example: { crmId: 'C-88213', branch: 'Parramatta' },
};

const metadataKeys: JsonSchema = { minLength: 1, maxLength: 40 };

/** `metadata` of a create request: string values; an empty value sets nothing. */
export const metadataInputSchema: JsonSchema = {
  type: 'object',
  maxProperties: 50,
  propertyNames: metadataKeys,
  additionalProperties: { type: 'string', maxLength: 500 },
  description: `Your own key-value data. ${METADATA_RULES}`,
  example: { crmId: 'C-88213' },
};

/** `metadata` of a PATCH: merged into what is there, key by key. */
export const metadataPatchSchema: JsonSchema = {
  type: ['object', 'null'],
  maxProperties: 50,
  propertyNames: metadataKeys,
  additionalProperties: { type: ['string', 'null'], maxLength: 500 },
  description:
    'Merged into the metadata already set: each key sent is set, a key sent as `""` or null is removed, keys not ' +
    `sent stay. \`null\` removes every key. ${METADATA_RULES} The result holds at most 50 keys.`,
  example: { crmId: 'C-90001', branch: null },
};

/** The list filter `metadata[key]=value`: one pair, matched exactly. */
export const metadataQuerySchema: JsonSchema = {
  type: 'object',
  minProperties: 1,
  maxProperties: 1,
  propertyNames: metadataKeys,
  additionalProperties: { type: 'string', maxLength: 500 },
  description: 'Only records whose metadata has this key with this value, e.g. `metadata[crmId]=C-88213` (one pair).',
};
