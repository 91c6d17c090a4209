/**
 * One real resource of each kind for an organisation, keyed by the resource segment of the API's paths (`debts`,
 * `webhooks/deliveries`, …): the tenancy tests try every route's resource with these ids. A route whose resource has
 * no factory here fails those tests, so a new route is covered or loudly uncovered.
 */
import { randomUUID } from 'node:crypto';
import { recordTransaction } from '../../core/debts/transactions';
import { recordAttempt } from '../../core/webhooks/delivery-attempts';
import { newId } from '../../core/platform/ids';
import type { Caller, Debt } from './debt-api';
import { raiseDebt } from './debt-api';
import { testDb } from './resources';
import type { TestTenant } from './tenants';
import { configureReceiver, deliveryOfEvent, dispatchAll, localWebhookConfig, raiseEvent } from './webhooks';

export interface Owner {
  tenant: TestTenant;
  api: Caller;
  /** Distinctive values of this organisation's singletons, which no other organisation may ever be answered. */
  markers: string[];
}

type Factory = (owner: Owner, shared: { debt: () => Promise<Debt> }) => Promise<string>;

const inboundPayment = { direction: 'Inbound', type: 'Payment', amount: '10' } as const;

export const RESOURCE_FACTORIES: Record<string, Factory> = {
  debts: async (_owner, { debt }) => (await debt()).id,
  debtors: async (_owner, { debt }) => (await debt()).debtorId,
  transactions: async (owner, { debt }) =>
    (
      await recordTransaction(testDb(), owner.tenant.organization.id, {
        ...inboundPayment,
        debtId: (await debt()).id,
        status: 'Pending',
      })
    ).id,
  payments: async (owner, { debt }) =>
    (
      await recordTransaction(testDb(), owner.tenant.organization.id, {
        ...inboundPayment,
        debtId: (await debt()).id,
        status: 'Succeeded',
      })
    ).id,
  /**
   * A document's row only (the tenancy tests need its id, not its bytes: its content answers a problem document,
   * which they compare like any other answer). documents-api.test.ts uploads real ones.
   */
  documents: async (owner, { debt }) => {
    const id = newId();
    await testDb()('documents').insert({
      id,
      organization_id: owner.tenant.organization.id,
      debt_id: (await debt()).id,
      kind: 'Agreement',
      file_name: 'agreement.pdf',
      content_type: 'application/pdf',
      size: 5,
      sha256: '0'.repeat(64),
      storage_key: `${owner.tenant.organization.id}/${'0'.repeat(64)}`,
    });
    return id;
  },
  /** A placement's row only, still `Validating` so a cancel would change it; placements-api.test.ts uploads real ones. */
  placements: async (owner) => {
    const id = newId();
    await testDb()('placements').insert({
      id,
      organization_id: owner.tenant.organization.id,
      format: 'csv',
      file_name: 'accounts.csv',
      storage_key: `${owner.tenant.organization.id}/${'0'.repeat(64)}`,
      size: 5,
      sha256: '0'.repeat(64),
      columns: JSON.stringify(['externalAccountId']),
    });
    return id;
  },
  events: async (owner) => raiseEvent(owner.tenant.organization.id, 'debt.updated'),
  /** A Failed delivery, the one state a retry would change. No relay runs: the receiver is never contacted. */
  'webhooks/deliveries': async (owner) => {
    const organizationId = owner.tenant.organization.id;
    const url = `http://127.0.0.1:9/hooks/${randomUUID()}`;
    await configureReceiver(localWebhookConfig(), organizationId, url);
    owner.markers.push(url);
    const eventId = await raiseEvent(organizationId, 'payment.received');
    await dispatchAll();
    const delivery = (await deliveryOfEvent(eventId))!;
    await recordAttempt(testDb(), {
      deliveryId: delivery.id,
      generation: 0,
      number: 1,
      url,
      startedAt: new Date(),
      succeeded: false,
      httpStatus: 503,
      latencyMs: 5,
      error: 'HTTP 503',
      responseBody: null,
      status: 'Failed',
      nextAttemptAt: null,
    });
    return delivery.id;
  },
};

/** Creates one resource per factory for `owner`; returns the ids by resource. */
export async function createOwnedResources(owner: Owner): Promise<Map<string, string>> {
  let debt: Promise<Debt> | undefined;
  const shared = { debt: () => (debt ??= raiseDebt(owner.api)) };
  const ids = new Map<string, string>();
  for (const [resource, create] of Object.entries(RESOURCE_FACTORIES)) ids.set(resource, await create(owner, shared));
  return ids;
}
