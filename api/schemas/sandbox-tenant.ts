/** JSON Schemas and examples of the sandbox host's sign-up and reset. */
import { SCOPES } from '../../core/access/scopes';
import { SANDBOX_IDLE_DAYS } from '../../core/sandbox/reset-status';
import type { JsonSchema } from '../http/route-definition';
import { timestampSchema, uuidSchema } from './common';
import { organizationSchema } from './organization';

export const sandboxSignupBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    organizationName: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'A name for your sandbox organisation; "Sandbox organisation" when left out.',
    },
  },
};

const signupKeySchema: JsonSchema = {
  type: 'object',
  required: ['id', 'key', 'prefix', 'name', 'scopes', 'readOnly', 'createdAt'],
  properties: {
    id: uuidSchema,
    key: { type: 'string', pattern: '^ak_test_[A-Za-z0-9]{32,}$', description: 'The full key: shown only here.' },
    prefix: { type: 'string', description: 'Its first 16 characters, kept for display.' },
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
    readOnly: { type: 'boolean' },
    createdAt: timestampSchema,
  },
};

export const sandboxSignupSchema: JsonSchema = {
  type: 'object',
  required: ['organization', 'apiKey'],
  properties: { organization: organizationSchema, apiKey: signupKeySchema },
};

export const sandboxSignupExample = {
  organization: {
    id: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
    name: 'Sandbox organisation',
    mode: 'sandbox',
    createdAt: '2026-11-26T08:00:00.000Z',
  },
  apiKey: {
    id: '01936f1e-8a53-7a10-8f1e-6d2b9c0a1e55',
    key: 'ak_test_7Hq2xVb9LmN4pR8sT1wY6zC3dF5gJ0kA2eU7iO9q',
    prefix: 'ak_test_7Hq2xVb9',
    name: 'sandbox sign-up key',
    scopes: [...SCOPES],
    readOnly: false,
    createdAt: '2026-11-26T08:00:00.000Z',
  },
};

/** The tenant's reset as `GET` and `POST /v1/sandbox/reset` answer it: from the database, no workflow id. */
export const sandboxResetStatusSchema: JsonSchema = {
  type: 'object',
  required: ['status', 'lastUsedAt', 'nextResetAt', 'lastResetAt'],
  properties: {
    status: {
      type: 'string',
      enum: ['Requested', 'Scheduled'],
      description:
        '`Requested`: a reset you asked for has not finished yet (it usually takes seconds). `Scheduled`: none is ' +
        'under way; your data will be reset at `nextResetAt` if none of your keys is used until then.',
    },
    lastUsedAt: {
      ...timestampSchema,
      description:
        'The last authenticated request of any of your keys (ISO 8601, UTC), to the minute; this one counts.',
    },
    nextResetAt: {
      ...timestampSchema,
      description: `When your data will be reset if none of your keys is used until then: \`lastUsedAt\` + ${SANDBOX_IDLE_DAYS} days.`,
    },
    lastResetAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When your data was last wiped and seeded again, idle or asked for; null before the first reset.',
    },
  },
};

export const sandboxResetStatusExample = {
  status: 'Scheduled',
  lastUsedAt: '2026-11-26T08:00:00.000Z',
  nextResetAt: '2026-12-03T08:00:00.000Z',
  lastResetAt: '2026-11-25T16:42:07.118Z',
};

export const sandboxResetRequestedExample = { ...sandboxResetStatusExample, status: 'Requested' };
