import { expect } from 'chai';
import { recordAttempt } from '../../core/webhooks/delivery-attempts';
import { startTestServer, type TestServer } from '../support/app';
import { testDb } from '../support/resources';
import { createTestTenant, mintKey, type TestTenant } from '../support/tenants';
import { configureReceiver, deliveryOfEvent, dispatchAll, localWebhookConfig, raiseEvent } from '../support/webhooks';
import { foundRow } from '../support/rows';
import type { DeliveryDetail, DeliveryView } from '../../core/webhooks/deliveries';
import type { EventEnvelope } from '../../core/events/outbox';
import type { Page } from '../../core/platform/pagination';

/** The wire shapes these tests read: the API's own views (dates are ISO strings in both). */
type Deliveries = Page<DeliveryView>;
type Events = Page<EventEnvelope>;
type Problem = { title: string };

const RECEIVER = 'http://127.0.0.1:9/hooks'; // never contacted: no relay runs in these tests

describe('delivery log and events API (GET /v1/webhooks/deliveries…, GET /v1/events)', () => {
  const webhooks = localWebhookConfig();
  let server: TestServer;
  let tenant: TestTenant;
  const ids: Record<'pending' | 'succeeded' | 'failed', string> = { pending: '', succeeded: '', failed: '' };
  const eventIds: string[] = [];

  async function getJson<T>(path: string, headers = tenant.headers): Promise<{ status: number; body: T }> {
    const res = await fetch(`${server.baseUrl}${path}`, { headers });
    return { status: res.status, body: (await res.json()) as T };
  }

  async function attempt(
    deliveryId: string,
    number: number,
    httpStatus: number,
    status: 'Pending' | 'Succeeded' | 'Failed',
  ) {
    await recordAttempt(testDb(), {
      deliveryId,
      generation: 0,
      number,
      url: RECEIVER,
      startedAt: new Date(),
      succeeded: status === 'Succeeded',
      httpStatus,
      latencyMs: 12,
      error: status === 'Succeeded' ? null : `HTTP ${httpStatus}`,
      responseBody: status === 'Succeeded' ? 'ok' : 'nope',
      status,
      nextAttemptAt: status === 'Pending' ? new Date(Date.now() + 60_000) : null,
    });
  }

  before(async () => {
    server = await startTestServer();
    tenant = await createTestTenant();
    await configureReceiver(webhooks, tenant.organization.id, RECEIVER);
    for (const type of ['debt.created', 'debt.updated', 'payment.received'] as const) {
      eventIds.push(await raiseEvent(tenant.organization.id, type));
    }
    await dispatchAll();
    const [pending, succeeded, failed] = await Promise.all(eventIds.map(async (e) => (await deliveryOfEvent(e))!.id));
    Object.assign(ids, { pending, succeeded, failed });
    await attempt(ids.pending, 1, 500, 'Pending');
    await attempt(ids.succeeded, 1, 204, 'Succeeded');
    await attempt(ids.failed, 1, 503, 'Failed');
  });
  after(async () => {
    await testDb()('webhook_deliveries').where({ organization_id: tenant.organization.id }).delete();
    await server.close();
  });

  it('lists deliveries newest first with their status and attempt count', async () => {
    const { status, body } = await getJson<Deliveries>('/v1/webhooks/deliveries');
    expect(status).to.equal(200);
    expect(body.nextCursor).to.equal(null);
    expect(body.data.map((d) => d.id)).to.deep.equal([ids.failed, ids.succeeded, ids.pending]);
    const pending = body.data[2]!;
    expect(pending).to.include({
      eventId: eventIds[0],
      eventType: 'debt.created',
      url: RECEIVER,
      status: 'Pending',
      attemptCount: 1,
    });
    expect(Date.parse(pending.nextAttemptAt!)).to.be.greaterThan(Date.now());
  });

  it('filters by status and by event type, and pages with nextCursor', async () => {
    const failed = await getJson<Deliveries>('/v1/webhooks/deliveries?status=Failed');
    expect(failed.body.data.map((d) => d.id)).to.deep.equal([ids.failed]);
    const updated = await getJson<Deliveries>('/v1/webhooks/deliveries?eventType=debt.updated');
    expect(updated.body.data.map((d) => d.id)).to.deep.equal([ids.succeeded]);
    const first = await getJson<Deliveries>('/v1/webhooks/deliveries?limit=2');
    expect(first.body.data).to.have.length(2);
    const second = await getJson<Deliveries>(`/v1/webhooks/deliveries?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((d) => d.id)).to.deep.equal([ids.pending]);
    expect(second.body.nextCursor).to.equal(null);
    expect((await getJson<Problem>('/v1/webhooks/deliveries?status=Lost')).status).to.equal(400);
    expect((await getJson<Problem>('/v1/webhooks/deliveries?cursor=bogus')).body.title).to.equal('invalid_request');
  });

  it('shows one delivery with its attempts; another organisation’s delivery is 404', async () => {
    const { status, body } = await getJson<DeliveryDetail>(`/v1/webhooks/deliveries/${ids.failed}`);
    expect(status).to.equal(200);
    expect(body).to.include({ id: ids.failed, status: 'Failed', attemptCount: 1 });
    expect(body.attempts).to.have.length(1);
    expect(body.attempts[0]).to.include({
      number: 1,
      url: RECEIVER,
      succeeded: false,
      httpStatus: 503,
      latencyMs: 12,
      error: 'HTTP 503',
      responseBody: 'nope',
    });
    const stranger = await createTestTenant();
    expect((await getJson<Problem>(`/v1/webhooks/deliveries/${ids.failed}`, stranger.headers)).status).to.equal(404);
    expect((await getJson<Problem>('/v1/webhooks/deliveries/not-a-uuid')).status).to.equal(404);
  });

  it('retries only a Failed delivery (202, Pending again, next run numbered on); otherwise 409 invalid_state', async () => {
    const retry = (id: string, headers = tenant.headers) =>
      fetch(`${server.baseUrl}/v1/webhooks/deliveries/${id}/retry`, { method: 'POST', headers });
    const pending = await retry(ids.pending);
    expect([pending.status, ((await pending.json()) as { title: string }).title]).to.deep.equal([409, 'invalid_state']);
    const readOnly = await mintKey(tenant.organization.id, { readOnly: true });
    expect((await retry(ids.failed, readOnly.headers)).status).to.equal(403);

    // A placement's delivery (bulk work) retried by hand is somebody's to wait for: no longer after its placement's.
    await testDb()('webhook_deliveries').where({ id: ids.failed }).update({ bulk: true });
    const res = await retry(ids.failed);
    expect(res.status).to.equal(202);
    expect(await res.json()).to.include({ id: ids.failed, status: 'Pending', attemptCount: 1, nextAttemptAt: null });
    const row = await foundRow(testDb()('webhook_deliveries').where({ id: ids.failed }).first(), 'delivery');
    expect([row.generation, row.attempt_base, row.workflow_started_at, row.bulk]).to.deep.equal([1, 1, null, false]);
    expect((await retry(ids.failed)).status).to.equal(409);
  });

  it('GET /v1/events lists the organisation’s events newest first, filters by type and pages', async () => {
    const all = await getJson<Events>('/v1/events');
    expect(all.body.data.map((e) => e.id)).to.deep.equal([...eventIds].reverse());
    expect(all.body.data[0]).to.have.keys(['id', 'type', 'createdAt', 'data', 'requestId']);
    expect((await getJson<Events>('/v1/events?type=debt.updated')).body.data.map((e) => e.id)).to.deep.equal([
      eventIds[1],
    ]);
    const first = await getJson<Events>('/v1/events?limit=2');
    const second = await getJson<Events>(`/v1/events?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((e) => e.id)).to.deep.equal([eventIds[0]]);
    const stranger = await createTestTenant();
    expect((await getJson<Events>('/v1/events', stranger.headers)).body.data).to.deep.equal([]);
    const noScope = await mintKey(tenant.organization.id, { scopes: ['debts:read'] });
    expect((await getJson<Problem>('/v1/events', noScope.headers)).status).to.equal(403);
  });

  it('documents every webhook operation in /openapi/v1.json', async () => {
    const doc = (await getJson<{ paths: Record<string, Record<string, { operationId: string }>> }>('/openapi/v1.json'))
      .body;
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId));
    expect(operations).to.include.members([
      'getWebhookConfig',
      'putWebhookConfig',
      'sendTestWebhook',
      'listWebhookDeliveries',
      'getWebhookDelivery',
      'retryWebhookDelivery',
      'listEvents',
    ]);
  });
});
