/**
 * A placement's deliveries are bulk work (core/events/bulk-work.ts): their runs start below the default priority, so
 * the server hands out every other run's tasks first — its own tenant's API debts' included — while each run keeps its
 * organisation's fairness key. Checked on the runs as a real Temporal server holds them.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { BULK_PRIORITY_KEY } from '../../core/temporal/fairness';
import { workflowIds } from '../../core/temporal/names';
import { createDeliveryStarter } from '../../core/webhooks/delivery-starter';
import { testLifecycle } from '../support/lifecycle-stack';
import { testDb } from '../support/resources';
import { createTestTenant } from '../support/tenants';

describe('the priority of a delivery run', function () {
  this.timeout(60_000);

  it('starts a placement’s delivery below the default priority, and any other at the default, both fair by tenant', async () => {
    const organizationId = (await createTestTenant()).organization.id;
    const client = (await testLifecycle()).client('production');
    // A queue no worker polls: the runs stay as started, to be read and terminated.
    const starter = createDeliveryStarter({ db: testDb(), client, taskQueue: `delivery-priority-${randomUUID()}` });
    const ref = (bulk: boolean) => ({
      deliveryId: randomUUID(),
      organizationId,
      eventType: 'debt.created',
      generation: 0,
      requestId: null,
      bulk,
    });
    const [placed, raised] = [ref(true), ref(false)];
    for (const delivery of [placed, raised]) await starter.start(delivery);
    const priorityOf = async (delivery: ReturnType<typeof ref>) => {
      const handle = client.workflow.getHandle(workflowIds.webhookDelivery(delivery.deliveryId, delivery.generation));
      const { priority } = (await handle.describe()).raw.workflowExecutionInfo ?? {};
      await handle.terminate('test over');
      return { fairnessKey: priority?.fairnessKey, priorityKey: priority?.priorityKey ?? 0 };
    };
    expect(await priorityOf(placed)).to.deep.equal({ fairnessKey: organizationId, priorityKey: BULK_PRIORITY_KEY });
    // 0: the default (3), as the server records an unset key.
    expect(await priorityOf(raised)).to.deep.equal({ fairnessKey: organizationId, priorityKey: 0 });
  });
});
