/**
 * The sandbox's simulations as data (DECISIONS.md §3): the debtor's, operations' and the payment processor's acts that
 * `POST /v1/sandbox/debts/{id}/…` and the console's debt page both play, each through the lifecycle's triggers. The
 * inputs arrive already read by the API's simulation schemas and conversions (`SimulationReader`, implemented in
 * api/routes/sandbox-input.ts), so a page and a route accept and refuse exactly the same things.
 */
import type { Debt } from '../debts/debts';
import type { AdvanceRequest, PaymentReport, PlanRequest } from './model';
import type { AdvanceOutcome, DebtTriggers } from './triggers';

export const SIMULATION_ACTIONS = ['accept', 'dispute', 'resolve', 'plan', 'payment', 'advance'] as const;
export type SimulationAction = (typeof SIMULATION_ACTIONS)[number];

export function isSimulationAction(value: string): value is SimulationAction {
  return (SIMULATION_ACTIONS as readonly string[]).includes(value);
}

export type Simulation =
  | { action: 'accept' }
  | { action: 'dispute'; reason: string }
  | { action: 'resolve'; outcome: 'rejected' | 'upheld' }
  | { action: 'plan'; plan: PlanRequest }
  | { action: 'payment'; payment: PaymentReport }
  | { action: 'advance'; request: AdvanceRequest };

/**
 * Reads a simulation's request body (JSON-shaped: what the API's route would receive) as the API does: its JSON
 * Schema, then its conversions (an exact amount in the debt's currency, `until` as an instant). Throws the API's
 * `invalid_request`, naming each field (`body.<name>`).
 */
export interface SimulationReader {
  read(action: SimulationAction, body: Record<string, unknown>, context: SimulationContext): Simulation;
}

export interface SimulationContext {
  /** The debt's currency: an amount has at most its minor unit's digits. */
  currency: string;
  /** The update's id (the request's): a payment named by none is named after it, so a retry counts once. */
  updateId: string;
}

/** Plays `simulation` on the debt through `triggers` (already on behalf of the request); the debt after it. */
export async function runSimulation(
  triggers: DebtTriggers,
  organizationId: string,
  debtId: string,
  simulation: Simulation,
): Promise<{ debt: Debt; fired?: AdvanceOutcome['fired'] }> {
  switch (simulation.action) {
    case 'accept':
      return { debt: await triggers.accept(organizationId, debtId) };
    case 'dispute':
      return { debt: await triggers.dispute(organizationId, debtId, simulation.reason) };
    case 'resolve':
      return { debt: await triggers.resolveDispute(organizationId, debtId, simulation.outcome) };
    case 'plan':
      return { debt: await triggers.agreePlan(organizationId, debtId, simulation.plan) };
    case 'payment':
      return { debt: await triggers.reportPayment(organizationId, debtId, simulation.payment) };
    case 'advance':
      return triggers.advance(organizationId, debtId, simulation.request);
  }
}
