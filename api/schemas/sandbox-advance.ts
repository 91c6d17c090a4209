/**
 * The sandbox's `advance` (`POST /v1/sandbox/debts/{id}/advance`): its optional body, and its
 * answer: the debt as `GET /v1/debts/{id}` returns it (what the route always answered) plus `fired`, the timers it
 * fired in order. A field added to the debt keeps clients of the old answer working (docs/versioning.md).
 */
import { DEBT_STATUSES, PLAN_STATUSES } from '../../core/debts/debt-status';
import type { JsonSchema } from '../http/route-definition';
import { timestampSchema } from './common';
import { debtExample, debtSchema } from './debts';
import { activePlan } from './sandbox-simulation';

/** The wire names of the plan's two timers (the lifecycle's `instalmentDue` and `gracePeriodEnds`). */
export const TIMER_NAMES = ['InstalmentDue', 'GracePeriodEnds'] as const;
/** What firing each does. */
export const TIMER_EFFECTS = ['InstalmentLate', 'PlanDefaulted'] as const;

export const advanceBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    until: {
      type: 'string',
      maxLength: 64,
      anyOf: [{ format: 'date' }, { format: 'date-time' }],
      description:
        'Fire every timer scheduled up to this moment, in order, instead of only the next one: a date and time ' +
        'with its offset (`2026-12-09T00:00:00Z`), or a date (`2026-12-08`), which means the end of that day, UTC. ' +
        'Nothing due by then fires nothing (an empty `fired`). The debt’s own clock does not move: later timers ' +
        'still run on real time.',
    },
  },
  example: { until: '2026-12-08' },
};

const firedTimerSchema: JsonSchema = {
  type: 'object',
  required: ['timer', 'instalment', 'dueDate', 'scheduledAt', 'effect', 'events', 'debtStatus', 'planStatus'],
  properties: {
    timer: {
      type: 'string',
      enum: [...TIMER_NAMES],
      description:
        '`InstalmentDue`: the end of an instalment’s due date. `GracePeriodEnds`: the end of its 7-day grace period.',
    },
    instalment: { type: 'integer', minimum: 1, description: 'Which instalment the timer is for: 1 for the first.' },
    dueDate: { type: 'string', format: 'date', description: 'That instalment’s due date.' },
    scheduledAt: { ...timestampSchema, description: 'When the timer would have fired on its own (ISO 8601, UTC).' },
    effect: {
      type: 'string',
      enum: [...TIMER_EFFECTS],
      description:
        '`InstalmentLate`: the instalment is now late; nothing else changes and no event is sent. ' +
        '`PlanDefaulted`: the plan is `Defaulted` and the debt `InArrears`.',
    },
    events: {
      type: 'array',
      items: { type: 'string' },
      description: 'The webhook event types it sent, in order (none for a late instalment).',
    },
    debtStatus: { type: 'string', enum: [...DEBT_STATUSES], description: 'The debt’s status right after it fired.' },
    planStatus: {
      type: ['string', 'null'],
      enum: [...PLAN_STATUSES, null],
      description: 'The plan’s status right after it fired.',
    },
  },
};

export const advanceAnswerSchema: JsonSchema = {
  description:
    'The debt after the timers fired, as `GET /v1/debts/{id}` returns it, with `fired`: what fired, in order.',
  allOf: [
    debtSchema,
    {
      type: 'object',
      required: ['fired'],
      properties: { fired: { type: 'array', items: firedTimerSchema } },
    },
  ],
};

/** `{ "until": "2026-12-08" }` on a plan whose first instalment, due 1 December, is unpaid. */
export const advanceExample = {
  ...debtExample,
  status: 'InArrears',
  plan: { ...activePlan, status: 'Defaulted' },
  updatedAt: '2026-11-23T09:15:00.000Z',
  fired: [
    {
      timer: 'InstalmentDue',
      instalment: 1,
      dueDate: '2026-12-01',
      scheduledAt: '2026-12-02T00:00:00.000Z',
      effect: 'InstalmentLate',
      events: [],
      debtStatus: 'Active',
      planStatus: 'Active',
    },
    {
      timer: 'GracePeriodEnds',
      instalment: 1,
      dueDate: '2026-12-01',
      scheduledAt: '2026-12-09T00:00:00.000Z',
      effect: 'PlanDefaulted',
      events: ['plan.defaulted', 'debt.updated'],
      debtStatus: 'InArrears',
      planStatus: 'Defaulted',
    },
  ],
};
