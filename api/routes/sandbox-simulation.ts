/**
 * The sandbox's simulation routes: `/v1/sandbox/debts/{id}/…` play the debtor (accept, dispute,
 * agree a plan), operations (resolve a dispute) and the test-mode payment processor (payments), and fire a debt's next
 * timer now (advance). Each drives the debt's real lifecycle workflow through the lifecycle's triggers, so the tenant's
 * webhook receiver gets the real events. Registered on the sandbox host only (api/app.ts): production answers 404 and
 * its OpenAPI document does not list them. They are mutations like any other: Idempotency-Key, rate limits, scopes.
 */
import { getDebt } from '../../core/debts/debts';
import { numberSourceText } from '../../core/debts/json-numbers';
import type { DebtTriggers } from '../../core/lifecycle/triggers';
import type { AdvanceRequest, PlanRequest } from '../../core/lifecycle/model';
import { errors, type ErrorCode } from '../../core/platform/errors';
import { rawBody } from '../http/middleware/json-body';
import { defineApiRoute, type ApiContext, type ApiWorkflowInput, type RouteDefinition } from '../http/route-definition';
import { idParams } from '../schemas/common';
import { debtSchema } from '../schemas/debts';
import { advanceAnswerSchema, advanceBody, advanceExample } from '../schemas/sandbox-advance';
import {
  disputeBody,
  paymentBody,
  planBody,
  resolveDisputeBody,
  simulationExamples as examples,
} from '../schemas/sandbox-simulation';
import { advanceAnswer } from './sandbox-advance';
import { advanceRequest, paymentReport, type PaymentBody } from './sandbox-input';

type Input<TBody = undefined> = ApiWorkflowInput<TBody, Record<string, never>, { id: string }>;

const SIMULATION_ERRORS: ErrorCode[] = ['not_found', 'invalid_state', 'service_unavailable'];
const SANDBOX_NOTE =
  ' Sandbox only (a test key; production answers 404). It drives the debt’s real lifecycle, exactly as the debtor ' +
  'portal and the payment processor will, and answers once the change and its events are committed.';

/**
 * The common declaration of a simulation: POST, `debts:write`, the debt's id, 200 with the debt after the move (or
 * `answer`'s schema, which `advance` extends).
 */
function simulation<TBody>(route: {
  action: string;
  operationId: string;
  summary: string;
  description: string;
  body?: Record<string, unknown>;
  optionalBody?: true;
  answer?: { description: string; schema: Record<string, unknown> };
  example: unknown;
  handler: (input: Input<TBody>, ctx: ApiContext) => Promise<unknown>;
}): RouteDefinition {
  return defineApiRoute<Input<TBody>>({
    method: 'post',
    path: `/v1/sandbox/debts/{id}/${route.action}`,
    operationId: route.operationId,
    summary: route.summary,
    description: route.description + SANDBOX_NOTE,
    tags: ['Sandbox'],
    scope: 'debts:write',
    params: idParams,
    ...(route.body ? { body: route.body } : {}),
    ...(route.optionalBody ? { optionalBody: true } : {}),
    errors: SIMULATION_ERRORS,
    drivesWorkflow: true, // no request transaction is held while the workflow answers
    responses: {
      200: {
        description: 'The debt after the move, as `GET /v1/debts/{id}` returns it.',
        schema: debtSchema,
        ...route.answer,
        example: route.example,
      },
    },
    handler: async (ctx, input) => ({ status: 200, body: await route.handler(input, ctx) }),
  });
}

export function sandboxSimulationRoutes(triggers: DebtTriggers): RouteDefinition[] {
  /**
   * The triggers on behalf of this request, asking with its update id (the request's id, or its Idempotency-Key's
   * first request's): the events they cause carry it, and a retry under the key is the same update.
   */
  const caused = (input: { updateId: string }) => triggers.forRequest(input.updateId);
  return [
    simulation({
      action: 'accept',
      operationId: 'simulateDebtAccepted',
      summary: 'Simulate: the debtor accepts the debt',
      description:
        'Moves a `PendingAssignment` debt to `Accepted` and sends `debt.accepted`, then `debt.updated`. Any other ' +
        'state answers `409 invalid_state`.',
      example: examples.accepted,
      handler: (input) => caused(input).accept(input.auth.organizationId, input.params.id),
    }),
    simulation<{ reason: string }>({
      action: 'dispute',
      operationId: 'simulateDebtDisputed',
      summary: 'Simulate: the debtor disputes the debt',
      description:
        'Moves a `PendingAssignment`, `Accepted`, `Active` or `InArrears` debt to `Disputed` with the debtor’s ' +
        '`reason` (the debt’s `disputeReason`), cancels a running plan, and sends `debt.disputed`, then ' +
        '`debt.updated`.',
      body: disputeBody,
      example: examples.disputed,
      handler: (input) => caused(input).dispute(input.auth.organizationId, input.params.id, input.body.reason),
    }),
    simulation<{ outcome: 'rejected' | 'upheld' }>({
      action: 'dispute/resolve',
      operationId: 'simulateDisputeResolved',
      summary: 'Simulate: operations resolve the dispute',
      description:
        'Resolves a `Disputed` debt: `rejected` returns it to `PendingAssignment`, `upheld` writes it off ' +
        '(`WrittenOff`, final). Either sends `debt.updated`.',
      body: resolveDisputeBody,
      example: examples.resolved,
      handler: (input) => caused(input).resolveDispute(input.auth.organizationId, input.params.id, input.body.outcome),
    }),
    simulation<PlanRequest>({
      action: 'plan',
      operationId: 'simulatePlanAgreed',
      summary: 'Simulate: the debtor agrees an instalment plan',
      description:
        'Agrees a plan on an `Accepted` or `InArrears` debt: the debt becomes `Active` and `plan.activated`, then ' +
        '`debt.updated`, are sent. The plan’s timers run on real time; `…/advance` fires them now.',
      body: planBody,
      example: examples.planned,
      handler: (input) => caused(input).agreePlan(input.auth.organizationId, input.params.id, input.body),
    }),
    simulation<PaymentBody>({
      action: 'payments',
      operationId: 'simulatePayment',
      summary: 'Simulate: the payment processor reports a payment',
      description:
        'A `Succeeded` payment records an inbound payment transaction, lowers `outstandingPrincipal`, pays the ' +
        'plan’s oldest unpaid instalments and sends `payment.received`, then `debt.updated`; one that clears the ' +
        'balance settles the debt (plan `Completed`). A `Failed` payment records a `Failed` transaction (see ' +
        '`GET /v1/transactions`) and nothing else: no balance change, no event. A final debt answers ' +
        '`409 invalid_state`.',
      body: paymentBody,
      example: examples.paid,
      handler: async (input, ctx) => {
        const { db, auth, params, body, updateId } = input;
        const debt = await getDebt(db, auth.organizationId, params.id);
        if (!debt) throw errors.notFound('debt');
        const written = numberSourceText(rawBody(ctx.request), 'amount', body.amount) ?? body.amount;
        const payment = paymentReport(body, { currency: debt.currency, updateId }, written);
        return caused(input).reportPayment(auth.organizationId, params.id, payment);
      },
    }),
    simulation<AdvanceRequest>({
      action: 'advance',
      operationId: 'simulateTimeAdvance',
      summary: 'Simulate: fire the debt’s timers now',
      description:
        'A running plan has one timer: the due date of its oldest unpaid instalment, then the end of that ' +
        'instalment’s 7-day grace period. With no body, `advance` fires that timer now; with `until`, every timer ' +
        'scheduled up to that moment, in order (a test clock for this debt). Firing a due date changes nothing you ' +
        'can see (no event: the instalment is merely late); firing the end of a grace period defaults the plan: the ' +
        'debt becomes `InArrears`, the plan `Defaulted`, and `plan.defaulted`, then `debt.updated`, are sent. So two ' +
        'calls, or one with an `until` past the grace period, take an unpaid plan to its default. The answer is the ' +
        'debt after them with `fired`, what fired in order. With no body, a debt with no timer running answers ' +
        '`409 invalid_state`; with `until`, nothing due by then is an empty `fired`. A final debt answers `409 ' +
        'invalid_state`.',
      body: advanceBody,
      optionalBody: true,
      answer: {
        description: 'The debt after the timers fired, as `GET /v1/debts/{id}` returns it, with what fired.',
        schema: advanceAnswerSchema,
      },
      example: advanceExample,
      handler: async (input) => {
        const request = advanceRequest(input.body);
        return advanceAnswer(await caused(input).advance(input.auth.organizationId, input.params.id, request));
      },
    }),
  ];
}
