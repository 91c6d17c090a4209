/**
 * Each event type's `data` and its delivered envelope, for the OpenAPI document's `components.schemas` and `webhooks`
 * (what core/debts and core/lifecycle record: `{debt}`, `{plan, debt}`, `{payment, debt}`, `{placement}` from
 * core/placements, or `{}` for a ping).
 */
import { EVENT_TYPES, type EventType } from '../../core/events/outbox';
import type { JsonSchema } from '../http/route-definition';
import { timestampSchema } from './common';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const DEBT = { debt: ref('Debt') };

/** An event type's data, by the resources it carries (`$ref`s to the named resource schemas). */
const DATA: Record<EventType, { description: string; properties: Record<string, JsonSchema> }> = {
  'debt.created': { description: 'The debt as raised.', properties: DEBT },
  'debt.updated': {
    description:
      'The debt after the change (an amendment, or a lifecycle change), and `previousAttributes`: what the change ' +
      'replaced.',
    properties: { ...DEBT, previousAttributes: ref('DebtPreviousAttributes') },
  },
  'debt.accepted': { description: 'The debt the debtor acknowledged (status `Accepted`).', properties: DEBT },
  'debt.disputed': { description: 'The debt the debtor disputes (status `Disputed`).', properties: DEBT },
  'payment.received': {
    description: 'The succeeded inbound payment and the debt after it.',
    properties: { payment: ref('Transaction'), ...DEBT },
  },
  'payment.refunded': {
    description:
      'A payment the debt refused (the debt was settled or closed meanwhile, or owed less), returned in full to the ' +
      'debtor through the processor; and the debt, which the payment never changed.',
    properties: { refund: ref('Refund'), ...DEBT },
  },
  'plan.activated': {
    description: 'The plan the debtor agreed and its debt.',
    properties: { plan: ref('Plan'), ...DEBT },
  },
  'plan.defaulted': {
    description: 'The plan that defaulted and its debt.',
    properties: { plan: ref('Plan'), ...DEBT },
  },
  'placement.completed': {
    description:
      'The placement as it ended: `Completed` or `CompletedWithErrors` (its counts final; a dry run’s after validation).',
    properties: { placement: ref('Placement') },
  },
  'placement.failed': {
    description:
      'The placement as it stopped: `Failed`, with `failureReason`; what its committed chunks imported stays.',
    properties: { placement: ref('Placement') },
  },
  'test.ping': { description: 'Empty: a ping carries no resource.', properties: {} },
};

/** `debt.created` → `DebtCreated`. */
export function eventSchemaName(type: EventType): string {
  return type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** `components.schemas` entries: `<Type>Data` and `<Type>Event` (the delivered envelope) for every event type. */
export function eventComponentSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const type of EVENT_TYPES) {
    const name = eventSchemaName(type);
    const { description, properties } = DATA[type];
    out[`${name}Data`] = {
      type: 'object',
      description,
      required: Object.keys(properties),
      properties,
    };
    out[`${name}Event`] = {
      type: 'object',
      description: `The \`${type}\` event as delivered to your receiver (exactly these four fields).`,
      required: ['id', 'type', 'createdAt', 'data'],
      properties: {
        id: { type: 'string', description: 'Begins `evt_`; de-duplicate on it.' },
        type: { type: 'string', const: type },
        createdAt: timestampSchema,
        data: ref(`${name}Data`),
      },
    };
  }
  return out;
}
