/**
 * What the sandbox's routes accept, shared with the console's sandbox pages so that a form and a request are read
 * alike: the routes' own JSON Schemas, compiled by the same validator the router uses, and the conversions
 * their handlers make (an exact amount in the debt's currency, a payment's default reference, `until` as an instant).
 * The router validates a route's body before its handler runs; the console, whose forms are not JSON, hands the
 * reader a JSON-shaped body and gets the same answers and the same `invalid_request` refusals.
 */
import { parseAmount } from '../../core/debts/money';
import type { AdvanceRequest, PaymentReport, PlanRequest } from '../../core/lifecycle/model';
import type { Simulation, SimulationAction, SimulationReader } from '../../core/lifecycle/simulations';
import { compileValidator, type Validator } from '../http/validation';
import { advanceBody } from '../schemas/sandbox-advance';
import { disputeBody, paymentBody, planBody, resolveDisputeBody } from '../schemas/sandbox-simulation';
import { sandboxSignupBody } from '../schemas/sandbox-tenant';
import { untilInstant } from './sandbox-advance';

export type PaymentBody = { amount: number | string; status?: 'Succeeded' | 'Failed'; processorReference?: string };

/** A simulated payment's reference when the request names none: one per update, so one per request or key. */
function defaultProcessorReference(updateId: string): string {
  return `pi_sandbox_${updateId.replace(/^req_/, '')}`;
}

/**
 * The payment the processor reports, from a valid body; `written` is the amount as the client wrote it (a JSON
 * number's source text), so it is read exactly.
 */
export function paymentReport(
  body: PaymentBody,
  context: { currency: string; updateId: string },
  written: string | number = body.amount,
): PaymentReport {
  return {
    amount: parseAmount(written, context.currency, 'amount'),
    // From the update id: a retry under the same Idempotency-Key names the same payment, so it is never recorded
    // twice, even if the workflow no longer remembers the update.
    processorReference: body.processorReference ?? defaultProcessorReference(context.updateId),
    succeeded: (body.status ?? 'Succeeded') === 'Succeeded',
  };
}

/** `advance`'s request, from a valid body: no `until` fires the next timer. */
export function advanceRequest(body: { until?: string }): AdvanceRequest {
  return body.until === undefined ? {} : { until: untilInstant(body.until) };
}

const validators: Record<Exclude<SimulationAction, 'accept'>, Validator> = {
  dispute: compileValidator('body', disputeBody),
  resolve: compileValidator('body', resolveDisputeBody),
  plan: compileValidator('body', planBody),
  payment: compileValidator('body', paymentBody),
  advance: compileValidator('body', advanceBody),
};

/** The simulation a body asks for, read as its route reads it. */
export const simulationReader: SimulationReader = {
  read(action, body, context): Simulation {
    if (action === 'accept') return { action };
    validators[action](body);
    switch (action) {
      case 'dispute':
        return { action, reason: body.reason as string };
      case 'resolve':
        return { action, outcome: body.outcome as 'rejected' | 'upheld' };
      case 'plan':
        return { action, plan: body as unknown as PlanRequest };
      case 'payment':
        return { action, payment: paymentReport(body as unknown as PaymentBody, context) };
      case 'advance':
        return { action, request: advanceRequest(body) };
    }
  },
};

const signupValidator = compileValidator('body', sandboxSignupBody);

/** A sign-up's body read as `POST /sandbox/signup` reads it: its organisation's name (the default when none). */
export function readSignup(body: Record<string, unknown>): { organizationName?: string } {
  signupValidator(body);
  return body;
}
