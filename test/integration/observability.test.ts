/**
 * Issue 13 items 4 and 5 against the real processes: the API and both outbox-running workers spawned as `npm start`
 * runs them, a real receiver, a Temporal dev server with our search attributes. One request's id is followed to its
 * event, its delivery, both workflows and the worker's log lines; each process's /metrics is scraped after the work.
 */
import { expect } from 'chai';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTE_KEYS, workflowIds } from '../../core/temporal/names';
import { callerFor, inlineDebtBody, type Caller, type Debt } from '../support/debt-api';
import { testEnv } from '../support/env';
import { consumersSkipBacklog } from '../support/outbox-cursors';
import { DEBT_LIFECYCLE_CONSUMER } from '../../core/lifecycle/lifecycle-consumer';
import { WEBHOOK_DELIVERY_CONSUMER } from '../../core/webhooks/delivery-consumer';
import { freePort } from '../support/ports';
import { killGroup } from '../support/processes';
import { testDb } from '../support/resources';
import {
  startApi,
  startLifecycleWorker,
  startWebhooksWorker,
  type ApiProcess,
  type ServiceProcess,
} from '../support/service-processes';
import { DEV_SERVER_NAMESPACES, startDevServer } from '../support/temporal';
import { createTestTenant } from '../support/tenants';
import { waitFor } from '../support/wait';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { configureReceiver, localWebhookConfig, localWebhookEnv } from '../support/webhooks';
import { sampleValue, scrape } from '../support/metrics';

const NAMESPACE = DEV_SERVER_NAMESPACES[0];

describe('observability of the real processes: one request id end to end, and every process’s metrics', function () {
  this.timeout(180_000);
  const webhooks = localWebhookConfig();
  let temporal: TestWorkflowEnvironment;
  let receiver: WebhookReceiver;
  let api: ApiProcess;
  let webhooksWorker: ServiceProcess;
  let lifecycleWorker: ServiceProcess;
  const ports = { api: 0, webhooks: 0, lifecycle: 0 };
  let call: Caller;

  before(async () => {
    await consumersSkipBacklog([WEBHOOK_DELIVERY_CONSUMER, DEBT_LIFECYCLE_CONSUMER], 'production');
    [temporal, receiver] = await Promise.all([startDevServer(), startWebhookReceiver()]);
    [ports.api, ports.webhooks, ports.lifecycle] = await Promise.all([freePort(), freePort(), freePort()]);
    const shared = { TEMPORAL_ADDRESS: temporal.address, REDIS_URL: testEnv.redisUrl, ...localWebhookEnv(webhooks) };
    const worker = { ...shared, WORKER_MODES: 'production', PRODUCTION_DATABASE_URL: testEnv.databaseUrl };
    [api, webhooksWorker, lifecycleWorker] = await Promise.all([
      startApi({
        ...shared,
        DATABASE_URL: testEnv.databaseUrl,
        TEMPORAL_NAMESPACE: NAMESPACE,
        METRICS_PORT: `${ports.api}`,
      }),
      startWebhooksWorker({ ...worker, PRODUCTION_TEMPORAL_NAMESPACE: NAMESPACE, METRICS_PORT: `${ports.webhooks}` }),
      startLifecycleWorker({ ...worker, PRODUCTION_TEMPORAL_NAMESPACE: NAMESPACE, METRICS_PORT: `${ports.lifecycle}` }),
    ]);
    const tenant = await createTestTenant();
    await configureReceiver(webhooks, tenant.organization.id, receiver.url);
    call = callerFor(api.baseUrl, tenant);
  });
  after(async () => {
    const procs = [api, webhooksWorker, lifecycleWorker];
    procs.forEach(killGroup);
    await Promise.all(procs.map((p) => p?.exited));
    await Promise.allSettled([temporal?.teardown(), receiver?.close()]);
  });

  /** The JSON lines of a process's output that carry this request id. */
  function logLinesOf(proc: ServiceProcess, requestId: string): Record<string, unknown>[] {
    return proc
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes(requestId))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('records a POST’s X-Request-Id on its event, its delivery, both workflows and the delivery worker’s log lines', async () => {
    const created = await call<Debt>('POST', '/v1/debts', inlineDebtBody());
    expect(created.status, created.text).to.equal(201);
    const requestId = created.headers.get('x-request-id')!;
    expect(requestId).to.match(/^req_[0-9a-f]{32}$/);

    const event = await testDb()('events')
      .whereRaw(`type = 'debt.created' and data->'debt'->>'id' = ?`, [created.body.id])
      .first('id', 'request_id');
    expect(event?.request_id).to.equal(requestId);
    const delivery = await testDb()('webhook_deliveries').where({ event_id: event!.id }).first('id', 'request_id');
    expect(delivery?.request_id).to.equal(requestId);

    await waitFor(() => receiver.requests.some((r) => r.deliveryId === delivery!.id), {
      what: 'the delivery to reach the receiver',
      timeoutMs: 60_000,
    });
    const client = new Client({ connection: temporal.connection, namespace: NAMESPACE });
    const found: string[] = [];
    await waitFor(
      async () => {
        found.length = 0;
        for await (const run of client.workflow.list({ query: `RequestId = "${requestId}"` }))
          found.push(run.workflowId);
        return found.length === 2;
      },
      { what: 'both workflows to be found by RequestId', timeoutMs: 30_000 },
    );
    const deliveryWorkflowId = workflowIds.webhookDelivery(delivery!.id);
    expect(found).to.have.members([deliveryWorkflowId, workflowIds.debt(created.body.id)]);
    const described = await client.workflow.getHandle(deliveryWorkflowId).describe();
    expect(described.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.requestId)).to.equal(requestId);

    await waitFor(() => logLinesOf(webhooksWorker, requestId).some((l) => l.msg === 'webhook attempt'), {
      what: 'the attempt’s log line',
      timeoutMs: 10_000,
    });
    const attempt = logLinesOf(webhooksWorker, requestId).find((l) => l.msg === 'webhook attempt')!;
    expect(attempt).to.include({
      requestId,
      deliveryId: delivery!.id,
      workflowId: deliveryWorkflowId,
      status: 'Succeeded',
    });

    const listed = await call<{ data: { id: string; requestId: string | null }[] }>('GET', '/v1/events?limit=5');
    expect(listed.body.data.find((e) => e.id === event!.id)?.requestId).to.equal(requestId);
    const deliveries = await call<{ data: { id: string; requestId: string | null }[] }>(
      'GET',
      '/v1/webhooks/deliveries?limit=5',
    );
    expect(deliveries.body.data.find((d) => d.id === delivery!.id)?.requestId).to.equal(requestId);
  });

  it('says in a failed attempt’s log line what went wrong, as the delivery’s record does', async () => {
    receiver.respondWith(() => {
      throw new Error('the receiver drops the connection');
    });
    try {
      const created = await call<Debt>('POST', '/v1/debts', inlineDebtBody());
      expect(created.status, created.text).to.equal(201);
      const requestId = created.headers.get('x-request-id')!;
      const failed = await waitFor(
        () => logLinesOf(webhooksWorker, requestId).find((l) => l.msg === 'webhook attempt' && l.outcome === 'failed'),
        { what: 'the failed attempt’s log line', timeoutMs: 60_000 },
      );
      expect(failed).to.include({ level: 40, httpStatus: null, status: 'Pending' });
      expect(failed.error).to.match(/^network error: \S+/);
      const record: { error: string | null } | undefined = await testDb()('webhook_delivery_attempts')
        .join('webhook_deliveries', 'webhook_deliveries.id', 'webhook_delivery_attempts.delivery_id')
        .where('webhook_deliveries.request_id', requestId)
        .first('webhook_delivery_attempts.error');
      expect(record?.error).to.equal(failed.error);
    } finally {
      receiver.respondWith(() => ({ status: 200, body: 'ok' }));
    }
  });

  it('serves the API’s request histogram by route template and status, and its rate-limit fail-open counter', async () => {
    const before = sampleValue(await scrape(ports.api), 'client_api_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/v1/debts/{id}',
      status: '404',
    });
    await call('GET', '/v1/debts/00000000-0000-4000-8000-000000000000');
    const text = await scrape(ports.api);
    const labels = { method: 'GET', route: '/v1/debts/{id}', status: '404' };
    expect(sampleValue(text, 'client_api_http_request_duration_seconds_count', labels)).to.equal((before ?? 0) + 1);
    expect(text).to.contain('# TYPE client_api_rate_limit_fail_open_total counter');
  });

  it('counts a lifecycle transition in the lifecycle worker after a trigger, and its outbox lag', async () => {
    const created = await call<Debt>('POST', '/v1/debts', inlineDebtBody());
    const labels = { mode: 'production', change: 'close', outcome: 'applied' };
    const before = sampleValue(await scrape(ports.lifecycle), 'client_api_lifecycle_transitions_total', labels) ?? 0;
    const closed = await call<Debt>('PATCH', `/v1/debts/${created.body.id}`, { status: 'Closed' });
    expect(closed.status, closed.text).to.equal(200);
    const text = await scrape(ports.lifecycle);
    expect(sampleValue(text, 'client_api_lifecycle_transitions_total', labels)).to.equal(before + 1);
    const lag = sampleValue(text, 'client_api_outbox_lag_seconds', { mode: 'production', consumer: 'debt-lifecycles' });
    expect(lag).to.be.a('number').and.at.least(0);
    expect(text).to.match(/^temporal_worker_task_slots_available\{.*task_queue="lifecycle"/m);
    expect(text).to.match(/^temporal_activity_schedule_to_start_latency_seconds_bucket\{.*task_queue="lifecycle"/m);
  });

  it('serves delivery outcomes, attempt latency, outbox lag and the Temporal SDK’s worker metrics on one port', async () => {
    const text = await scrape(ports.webhooks);
    const succeeded = sampleValue(text, 'client_api_webhook_deliveries_finished_total', {
      mode: 'production',
      status: 'Succeeded',
    });
    expect(succeeded).to.be.at.least(1);
    const attempts = sampleValue(text, 'client_api_webhook_attempt_duration_seconds_count', {
      mode: 'production',
      outcome: 'succeeded',
    });
    expect(attempts).to.be.at.least(1);
    const lag = sampleValue(text, 'client_api_outbox_lag_seconds', {
      mode: 'production',
      consumer: 'webhook-deliveries',
    });
    expect(lag).to.be.a('number').and.at.least(0);
    expect(text).to.contain('client_api_webhook_deliveries_reconciled_total');
    expect(text).to.contain('process_resident_memory_bytes');
    for (const sdk of [
      'temporal_worker_task_slots_available',
      'temporal_workflow_task_schedule_to_start_latency_seconds_bucket',
      'temporal_local_activity_execution_latency_seconds_bucket', // the attempts: local activities
      'temporal_long_request_latency_seconds_bucket',
    ]) {
      expect(text, sdk).to.match(new RegExp(`^${sdk}\\{.*task_queue="webhooks"|^${sdk}\\{`, 'm'));
    }
  });
});
