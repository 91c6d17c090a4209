/** Shared steps of the retention tests: age rows, finish deliveries, and move the outbox cursors. */
import { expect } from 'chai';
import type { DeliveryStatus } from '../../core/webhooks/deliveries';
import { RETENTION_DAYS } from '../../core/retention/purge';
import { testDb } from './resources';
import { waitFor } from './wait';
import { deliveryOfEvent, dispatchAll } from './webhooks';

/** Just past the retention period. */
const OLD = `now() - make_interval(days => ${RETENTION_DAYS + 1})`;

export async function ageEvent(eventId: string): Promise<void> {
  await testDb()('events')
    .where({ id: eventId })
    .update({ created_at: testDb().raw(OLD) });
}

/** Dispatches the outbox until the event has its delivery (a transaction open elsewhere may hold the horizon back). */
export async function deliveryFor(eventId: string) {
  return waitFor(async () => (await dispatchAll('production'), deliveryOfEvent(eventId)), {
    timeoutMs: 20_000,
    what: 'the event to be dispatched into a delivery',
  });
}

/** Gives the event's delivery a status and one attempt; `old` puts both past the retention period. */
export async function settleDelivery(eventId: string, status: DeliveryStatus, old: boolean): Promise<string> {
  const delivery = await deliveryFor(eventId);
  const at = old ? testDb().raw(OLD) : testDb().fn.now(3);
  await testDb()('webhook_deliveries')
    .where({ id: delivery.id })
    .update({ status, created_at: at, updated_at: at, attempt_count: 1 });
  await testDb()('webhook_delivery_attempts').insert({
    delivery_id: delivery.id,
    number: 1,
    url: delivery.url,
    started_at: new Date(),
    succeeded: status === 'Succeeded',
    http_status: status === 'Succeeded' ? 200 : 503,
    latency_ms: 12,
  });
  return delivery.id;
}

/**
 * Every consumer of production takes everything up to the organisation's last event: each cursor behind it moves to
 * it (the shared test database also holds cursors of consumers other test files made and left behind).
 */
export async function everyConsumerTakes(organizationId: string): Promise<void> {
  await testDb().raw(
    `update outbox_cursors c set txid = last.txid, seq = last.seq
       from (select txid, seq from events where organization_id = ? order by txid desc, seq desc limit 1) last
      where c.mode = 'production' and (c.txid, c.seq) < (last.txid, last.seq)`,
    [organizationId],
  );
}

/** A consumer whose cursor stands just before the event: it has not taken it yet. */
export async function laggingConsumer(name: string, eventId: string): Promise<() => Promise<void>> {
  const inserted = await testDb().raw<{ rowCount: number }>(
    `insert into outbox_cursors (consumer, mode, txid, seq)
     select ?, 'production', txid, seq - 1 from events where id = ?`,
    [name, eventId],
  );
  expect(inserted.rowCount).to.equal(1);
  return async () => void (await testDb()('outbox_cursors').where({ consumer: name }).delete());
}

export async function remainingEvents(organizationId: string): Promise<string[]> {
  const rows = await testDb()('events').where({ organization_id: organizationId }).orderBy('seq').select('id');
  return rows.map((row) => row.id);
}

export async function remainingDeliveries(organizationId: string): Promise<string[]> {
  const rows = await testDb()('webhook_deliveries').where({ organization_id: organizationId }).select('id');
  return rows.map((row) => row.id).sort();
}

export async function attemptCount(deliveryIds: string[]): Promise<number> {
  const [row] = await testDb()('webhook_delivery_attempts').whereIn('delivery_id', deliveryIds).count({ n: '*' });
  return Number(row?.n ?? 0);
}
