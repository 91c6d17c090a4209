/** Shared steps of the webhook tests: configure a receiver, raise events, dispatch them, read histories. */
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../core/platform/config';
import { temporal } from '@temporalio/proto';
import type { WorkflowHandle } from '@temporalio/client';
import type { Mode, WebhookConfig } from '../../core/platform/config';
import type { OutboxConsumer } from '../../core/events/consumer';
import { recordEvent, type EventType } from '../../core/events/outbox';
import { ensureCursor } from '../../core/events/cursor';
import { takeBatch } from '../../core/events/relay';
import { WEBHOOK_DELIVERY_CONSUMER } from '../../core/webhooks/delivery-consumer';
import { unstartedDeliveriesOf, type DeliveryRef } from '../../core/webhooks/dispatch';
import type { DeliveryRow } from '../../core/webhooks/deliveries';
import { setWebhookUrl } from '../../core/webhooks/receiver-config';
import { createSecretBox } from '../../core/platform/secret-box';
import type { Db } from '../../core/platform/db';
import { testDb } from './resources';
import { waitFor } from './wait';

/**
 * Receivers on 127.0.0.1 over http, as WEBHOOK_ALLOW_HOSTS / WEBHOOK_ALLOW_HTTP allow in development. The secret key
 * is the development default the test API server also uses, so every secret in the test database opens with it.
 */
export function localWebhookConfig(): WebhookConfig {
  return { ...loadConfig({ APP_ENV: 'test' }).webhooks, allowHosts: ['127.0.0.1'], allowHttp: true };
}

/** The env that gives API and worker processes the same settings as `localWebhookConfig`-alike. */
export function localWebhookEnv(config: WebhookConfig): Record<string, string> {
  return {
    WEBHOOK_SECRET_KEY: config.secretKeys!.current.toString('base64'),
    WEBHOOK_ALLOW_HOSTS: config.allowHosts.join(','),
    WEBHOOK_ALLOW_HTTP: String(config.allowHttp),
  };
}

/** Sets the organisation's receiver (in the test database unless `db` says another) and returns the minted secret. */
export async function configureReceiver(
  config: WebhookConfig,
  organizationId: string,
  url: string,
  db: Db = testDb(),
): Promise<string> {
  const secretBox = createSecretBox(config.secretKeys);
  const change = await db.transaction((trx) => setWebhookUrl(trx, secretBox, organizationId, url));
  if (!change.newSecret) throw new Error('expected a newly minted secret');
  return change.newSecret;
}

/** A debt event whose payload carries debtor contact data, as the real ones do. */
export const DEBTOR_EMAIL = 'ava.harris.webhook-test@example.com';
export const DEBTOR_PHONE = '+61400987654';

export async function raiseEvent(organizationId: string, type: EventType = 'debt.created'): Promise<string> {
  const data = {
    debt: { id: randomBytes(8).toString('hex'), status: 'PendingAssignment', originalPrincipal: 1250, currency: 'AUD' },
    debtor: { firstName: 'Ava', lastName: 'Harris', email: DEBTOR_EMAIL, phone: DEBTOR_PHONE },
  };
  const event = await testDb().transaction((trx) => recordEvent(trx, organizationId, type, data));
  return event.id;
}

/**
 * The webhook delivery consumer's database step, without starting workflows (the test starts them itself): takes the
 * outbox of this mode up to the horizon under the real consumer's cursor; returns the deliveries of the events it
 * took whose workflow has not started.
 */
export async function dispatchAll(mode: Mode = 'production'): Promise<DeliveryRef[]> {
  const created: DeliveryRef[] = [];
  const rowsOnly: OutboxConsumer = {
    name: WEBHOOK_DELIVERY_CONSUMER,
    consume: async (trx, events) => void created.push(...(await unstartedDeliveriesOf(trx, events))),
  };
  await ensureCursor(testDb(), rowsOnly, mode);
  // Events reach the consumer only below the horizon (core/events/cursor.ts): a transaction open elsewhere on the
  // server holds them back for a moment, so take batches until the newest event of the mode has been taken.
  const newest = await newestEventId(mode);
  await waitFor(
    async () => {
      while ((await takeBatch(testDb(), mode, rowsOnly, 500)) > 0);
      return !newest || (await isConsumed(WEBHOOK_DELIVERY_CONSUMER, mode, newest));
    },
    { timeoutMs: 20_000, what: 'the webhook consumer to take every event raised so far' },
  );
  return created;
}

async function newestEventId(mode: Mode): Promise<string | undefined> {
  const row = await testDb()('events as e')
    .join('organizations as o', 'o.id', 'e.organization_id')
    .where('o.mode', mode)
    .orderBy([
      { column: 'e.txid', order: 'desc' },
      { column: 'e.seq', order: 'desc' },
    ])
    .first<{ id: string } | undefined>('e.id');
  return row?.id;
}

/** Whether `consumer` has taken the event: its outbox position is at or before the consumer's cursor. */
export async function isConsumed(consumer: string, mode: Mode, eventId: string): Promise<boolean> {
  const { rows } = await testDb().raw<{ rows: { consumed: boolean }[] }>(
    `select (e.txid, e.seq) <= (c.txid, c.seq) as consumed
       from events e join outbox_cursors c on c.consumer = ? and c.mode = ?
      where e.id = ?`,
    [consumer, mode, eventId],
  );
  return rows[0]?.consumed === true;
}

export async function deliveryOfEvent(eventId: string): Promise<DeliveryRow | undefined> {
  return testDb()('webhook_deliveries').where({ event_id: eventId }).first();
}

export async function attemptsOf(deliveryId: string) {
  return testDb()('webhook_delivery_attempts').where({ delivery_id: deliveryId }).orderBy('number');
}

/** The workflow's history as the bytes the server stores, payloads included, for "is X in there" checks. */
export async function historyBytes(handle: WorkflowHandle): Promise<string> {
  const history = await handle.fetchHistory();
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
}
