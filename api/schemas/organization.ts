/** JSON Schema and example of the caller's organisation. */
import type { JsonSchema } from '../http/route-definition';
import { timestampSchema, uuidSchema } from './common';

export const organizationSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'mode', 'createdAt'],
  properties: {
    id: uuidSchema,
    name: { type: 'string' },
    mode: { type: 'string', enum: ['production', 'sandbox'] },
    createdAt: timestampSchema,
  },
};

export const organizationExample = {
  id: '01936f1e-8a52-7c1d-9a5e-3f0b6c2d4e71',
  name: 'Acme Lending',
  mode: 'production',
  createdAt: '2026-11-22T07:00:00.000Z',
};
