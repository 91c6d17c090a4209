/**
 * The event catalogue (/docs/events): every event type with its envelope and an example payload built from the same
 * schemas as the OpenAPI document's `webhooks` section (api/schemas/event-data.ts) and filled from the route table's
 * own examples (a debt, a payment, the sandbox simulations' debts), so no payload here is kept by hand.
 */
import { EVENT_TYPES, type EventType } from '../../core/events/outbox';
import { debtExample } from '../schemas/debts';
import { eventComponentSchemas, eventSchemaName } from '../schemas/event-data';
import { eventExample } from '../schemas/events';
import { simulationExamples } from '../schemas/sandbox-simulation';
import { placementExample } from '../schemas/placements';
import { refundExample } from '../schemas/refunds';
import { transactionExample } from '../schemas/transactions';
import { namedSchemas } from './named-schemas';
import { schemaExample } from './schema-example';

/** When each type is sent (docs/lifecycle.md has the moves in full). Typed by EventType: a new type needs its line. */
const SENT_WHEN: Record<EventType, string> = {
  'debt.created': 'You raised a debt (`POST /v1/debts`).',
  'debt.updated':
    'Any field of a debt changed: your amendment or recall (`PATCH /v1/debts/{id}`), or a lifecycle move (after ' +
    'the move’s own event, where it has one).',
  'debt.accepted': 'The debtor acknowledged the debt in the portal.',
  'debt.disputed': 'The debtor disputed the debt, with a reason.',
  'payment.received': 'A payment on the debt succeeded (a failed one sends no event).',
  'payment.refunded':
    'A payment the processor took was refused by the debt (already settled or closed, or more than the balance) and ' +
    'refunded in full; no transaction was recorded for it.',
  'plan.activated': 'The debtor agreed an instalment plan.',
  'plan.defaulted': 'An instalment was still unpaid when its 7-day grace period ended.',
  'placement.completed':
    'A placement finished: every row imported, skipped or failed (`POST /v1/placements`; a dry run once validated).',
  'placement.failed': 'A placement stopped because its file could not be read on (see `failureReason`).',
  'test.ping': 'You asked for a test delivery (`POST /v1/webhooks/test`).',
};

const PLACEMENT_END = '2026-12-06T09:04:10.000Z';
const COUNTS = { rows: 12000, imported: 11985, skipped: 12, failed: 3 };
const FAILURE =
  'The file is not valid CSV: Quote Not Closed: the parsing is finished with an opening quote at line 4512';

/** What `data` shows in each example: the route table's examples of the resources at that moment of a debt's life. */
function momentOf(type: EventType): Record<string, unknown> {
  const { accepted, disputed, planned, paid, defaulted } = simulationExamples;
  switch (type) {
    case 'debt.created':
      return { debt: debtExample };
    case 'debt.updated':
    case 'debt.accepted':
      return { debt: accepted };
    case 'debt.disputed':
      return { debt: disputed };
    case 'payment.received': {
      const amount = Math.round((paid.originalPrincipal - paid.outstandingPrincipal) * 100) / 100;
      return { payment: { ...transactionExample, amount, createdAt: paid.updatedAt }, debt: paid };
    }
    case 'payment.refunded':
      return { refund: { ...refundExample, debtId: paid.id }, debt: paid };
    case 'plan.activated':
      return { plan: planned.plan, debt: planned };
    case 'plan.defaulted':
      return { plan: defaulted.plan, debt: defaulted };
    case 'placement.completed':
      return {
        placement: { ...placementExample, status: 'CompletedWithErrors', completedAt: PLACEMENT_END, ...COUNTS },
      };
    case 'placement.failed':
      return {
        placement: { ...placementExample, status: 'Failed', completedAt: PLACEMENT_END, failureReason: FAILURE },
      };
    case 'test.ping':
      return {};
  }
}

export interface CatalogueEntry {
  type: EventType;
  /** `components.schemas` name of the delivered envelope (`DebtCreatedEvent`). */
  schemaName: string;
  sentWhen: string;
  dataDescription: string;
  /** `data`'s fields: name and what it holds (a named schema, or its type). */
  dataFields: { name: string; holds: string; description?: string }[];
  example: Record<string, unknown>;
}

export function eventCatalogue(): CatalogueEntry[] {
  const events = eventComponentSchemas();
  const components = { ...namedSchemas(), ...events };
  return EVENT_TYPES.map((type, index) => {
    const name = eventSchemaName(type);
    const data = events[`${name}Data`] as { description: string; properties: Record<string, Record<string, unknown>> };
    const moment = momentOf(type);
    const createdAt = (moment.debt as { updatedAt?: string } | undefined)?.updatedAt ?? eventExample.createdAt;
    // Distinct ids, one per type: the list example's id with its last two digits numbered.
    const id = `${eventExample.id.slice(0, -2)}${(index + 16).toString(16)}`;
    const hint = { id, type, createdAt, data: moment };
    return {
      type,
      schemaName: `${name}Event`,
      sentWhen: SENT_WHEN[type],
      dataDescription: data.description,
      dataFields: Object.entries(data.properties).map(([field, schema]) => ({
        name: field,
        holds: typeof schema.$ref === 'string' ? schema.$ref.split('/').pop()! : JSON.stringify(schema.type ?? 'value'),
        ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
      })),
      example: schemaExample({ $ref: `#/components/schemas/${name}Event` }, hint, components) as Record<
        string,
        unknown
      >,
    };
  });
}

/** The catalogue as Markdown: a summary table, then one section per type with its example. */
export function eventCatalogueMarkdown(entries: CatalogueEntry[] = eventCatalogue()): string {
  const summary = [
    '| Type | Sent when |',
    '|---|---|',
    ...entries.map((e) => `| [\`${e.type}\`](#${anchor(e.type)}) | ${e.sentWhen} |`),
  ];
  const sections = entries.map((e) => {
    const fields =
      e.dataFields.length === 0
        ? '`data` is empty: `{}`.'
        : [
            '| `data` field | Holds |',
            '|---|---|',
            ...e.dataFields.map(
              (f) => `| \`${f.name}\` | \`${f.holds}\`${f.description ? `: ${f.description}` : ''} |`,
            ),
          ].join('\n');
    return [
      `## \`${e.type}\``,
      `**Sent when:** ${e.sentWhen}`,
      `**\`data\`:** ${e.dataDescription}`,
      fields,
      `Schema: \`${e.schemaName}\` in the OpenAPI document's \`components.schemas\` (and its \`webhooks\` section).`,
      '```json\n' + JSON.stringify(e.example, null, 2) + '\n```',
    ].join('\n\n');
  });
  return [summary.join('\n'), ...sections].join('\n\n');
}

/** The id the docs give the heading of an event type's section (`debt.created` → `debt-created`). */
export function anchor(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
