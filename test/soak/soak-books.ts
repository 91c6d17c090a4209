/**
 * Nothing lost, checked once the load has stopped and the stack has drained: every event of the tenants with a
 * receiver has one delivery and it Succeeded (the slow receiver still answers in time), every debt that is still open
 * has its `debt-<id>` workflow running, and every production debt's portal mail was sent (the sandbox sends none).
 */
import { Client, Connection } from '@temporalio/client';
import { TERMINAL_STATUSES } from '../../core/debts/debt-status';
import { NAMESPACES, WORKFLOW_TYPES } from '../../core/temporal/names';
import { waitFor } from '../support/wait';
import type { SoakStack } from './soak-stack';

const DRAIN_TIMEOUT_MS = 5 * 60_000;

export interface Books {
  events: number;
  deliveriesSucceeded: number;
  openDebts: number;
  runningWorkflows: number;
  productionDebts: number;
  portalMailsSent: number;
  /** Seconds from the load's stop until everything above was settled (or the timeout). */
  drainSeconds: number;
  problems: string[];
}

/** The count over every database of the stack (each mode's; the dev stack's are one, counted once). */
async function count(stack: SoakStack, sql: string, bindings: (string | string[])[]): Promise<number> {
  let total = 0;
  for (const db of new Set(Object.values(stack.dbs))) {
    const { rows } = await db.raw<{ rows: { n: string }[] }>(`select count(*) as n from ${sql}`, bindings);
    total += Number(rows[0]?.n ?? 0);
  }
  return total;
}

export async function checkBooks(stack: SoakStack): Promise<Books> {
  const started = Date.now();
  const production = stack.tenants.production.map((t) => t.organization.id);
  const tenants = [...production, stack.tenants.sandbox.organization.id];
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    const running = async (organizationId: string, namespace: string) => {
      const client = new Client({ connection, namespace });
      const query = `WorkflowType = "${WORKFLOW_TYPES.debtLifecycle}" AND OrganizationId = "${organizationId}" AND ExecutionStatus = "Running"`;
      return (await client.workflow.count(query)).count;
    };
    const read = async () => {
      let runningWorkflows = 0;
      for (const id of production) runningWorkflows += await running(id, NAMESPACES.production);
      runningWorkflows += await running(stack.tenants.sandbox.organization.id, NAMESPACES.sandbox);
      return {
        events: await count(stack, 'events where organization_id = any(?)', [tenants]),
        deliveries: await count(stack, 'webhook_deliveries where organization_id = any(?)', [tenants]),
        deliveriesSucceeded: await count(
          stack,
          `webhook_deliveries where organization_id = any(?) and status = 'Succeeded'`,
          [tenants],
        ),
        openDebts: await count(stack, 'debts where organization_id = any(?) and status <> all(?)', [
          tenants,
          [...TERMINAL_STATUSES],
        ]),
        runningWorkflows,
        productionDebts: await count(stack, 'debts where organization_id = any(?)', [production]),
        portalMailsSent: await count(
          stack,
          `debtor_notifications where organization_id = any(?) and kind = 'portal_link' and status = 'sent'`,
          [production],
        ),
      };
    };
    let state = await read();
    const settled = (s: typeof state) =>
      s.deliveries === s.events &&
      s.deliveriesSucceeded === s.events &&
      s.runningWorkflows === s.openDebts &&
      s.portalMailsSent === s.productionDebts;
    await waitFor(async () => settled((state = await read())), {
      what: 'the stack to drain',
      timeoutMs: DRAIN_TIMEOUT_MS,
      intervalMs: 2_000,
    }).catch(() => undefined);
    const problems: string[] = [];
    if (state.deliveries !== state.events) problems.push(`${state.events} events but ${state.deliveries} deliveries`);
    if (state.deliveriesSucceeded !== state.events)
      problems.push(`${state.events - state.deliveriesSucceeded} events not delivered`);
    if (state.runningWorkflows !== state.openDebts)
      problems.push(`${state.openDebts} open debts but ${state.runningWorkflows} running workflows`);
    if (state.portalMailsSent !== state.productionDebts)
      problems.push(`${state.productionDebts} production debts but ${state.portalMailsSent} portal mails sent`);
    const { deliveries: _deliveries, ...figures } = state;
    return { ...figures, drainSeconds: (Date.now() - started) / 1000, problems };
  } finally {
    await connection.close();
  }
}
