/**
 * OpenAPI 3.1's `webhooks` section of /openapi/v1.json: what a client's receiver is sent, one entry per event type,
 * with the signature headers it checks (docs/webhooks.md).
 */
import { EVENT_TYPES } from '../../core/events/outbox';
import { eventSchemaName } from '../schemas/event-data';

/** OpenAPI 3.1 `webhooks`: what your receiver is sent, one entry per event type (docs/webhooks.md). */
export function webhooksSection(): Record<string, unknown> {
  const header = (description: string) => ({ in: 'header', required: true, description, schema: { type: 'string' } });
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: `The \`${type}\` event, POSTed to your receiver`,
          tags: ['Webhooks'],
          parameters: [
            {
              name: 'Service-Signature',
              ...header(
                '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with your whole `whsec_` secret; reject when `t` is more than 300 s from now.',
              ),
            },
            { name: 'Service-Delivery-Id', ...header('The delivery id; the same on every attempt of this delivery.') },
            {
              name: 'Service-Mode',
              ...header('`live` for an event of the production API, `test` for one of the sandbox.'),
              schema: { type: 'string', enum: ['live', 'test'] },
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(type)}Event` } } },
          },
          responses: {
            '2XX': { description: 'Received: any 2xx ends the delivery.' },
            default: { description: 'Anything else (or no answer within the timeout) is retried: /docs/webhooks.' },
          },
        },
      },
    ]),
  );
}
