/** JSON Schemas and examples of the webhook configuration routes. */
import type { JsonSchema } from '../http/route-definition';
import { uuidSchema } from './common';

export const webhookConfigSchema: JsonSchema = {
  type: 'object',
  required: ['url', 'enabled', 'secretPrefix'],
  properties: {
    url: { type: ['string', 'null'], description: 'The receiver; null when none is configured.' },
    enabled: { type: 'boolean', description: 'True when a URL and a secret are set and events are delivered.' },
    secretPrefix: {
      type: ['string', 'null'],
      description: 'First 12 characters of the signing secret, to tell secrets apart.',
    },
    newSecret: {
      type: 'string',
      description: 'The full signing secret (`whsec_…`). Only in the response that minted it: store it now.',
    },
  },
};

export type PutWebhookConfigBody = { url?: string; rotateSecret?: boolean; clear?: boolean };

export const putWebhookConfigBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048, description: 'Absolute https URL of your receiver.' },
    rotateSecret: { type: 'boolean', description: 'Mint a new secret; the old one stops signing at once.' },
    clear: { type: 'boolean', description: 'Forget URL and secret; no new events are enqueued.' },
  },
  example: { url: 'https://hooks.example.com/debt-events' },
};

export const testPingSchema: JsonSchema = {
  type: 'object',
  required: ['eventId', 'deliveryId'],
  properties: { eventId: { type: 'string' }, deliveryId: uuidSchema },
};

const EXAMPLE_URL = 'https://hooks.example.com/debt-events';

export const webhookConfigExample = { url: EXAMPLE_URL, enabled: true, secretPrefix: 'whsec_Zk3Rt0' };
export const mintedWebhookConfigExample = {
  ...webhookConfigExample,
  newSecret: 'whsec_Zk3Rt0pQ1xW8nV5bL2cJ7hG4fD9sA6mK0eY3uT1iO8r',
};
export const testPingExample = {
  eventId: 'evt_0193a1b2c3d47e8f9a0b1c2d3e4f5a6b',
  deliveryId: '0193a1b2-c3d4-7e8f-9a0b-1c2d3e4f5a6c',
};
