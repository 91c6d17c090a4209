/**
 * The debt-lifecycle workflow's activities (DECISIONS.md §3): load a debt's lifecycle state, and apply one change
 * with its events in one transaction (core/lifecycle/apply-change.ts). A business refusal is a returned result
 * (`refused`), never thrown. A missing debt, a version the row does not match or a missing input means the workflow
 * and the database disagree: no retry can mend that, so it is a non-retryable ApplicationFailure whose `type` is one
 * of LIFECYCLE_FAILURE_TYPES. Anything else (the database down) throws as it is, and Temporal retries.
 * Inputs and results carry ids, statuses, amounts and dates: never debtor contact data or free text.
 */
import { ApplicationFailure } from '@temporalio/common';
import { register, type Registry } from 'prom-client';
import { requestIdOfUpdate } from '../core/events/request-cause';
import type { Logger } from '../core/platform/logger';
import type { Mode } from '../core/platform/mode';
import { counterOnce } from '../core/platform/process-metrics';
import { activityLogger, silentLogger } from './activity-log';
import type { Db } from '../core/platform/db';
import { applyLifecycleChange, loadLifecycleState } from '../core/lifecycle/apply-change';
import { LifecycleIntegrityError } from '../core/lifecycle/errors';
import {
  LIFECYCLE_FAILURE_TYPES,
  type ApplyChangeInput,
  type ApplyChangeResult,
  type LifecycleState,
} from '../core/lifecycle/model';

export type {
  AdvanceRequest,
  ApplyChangeInput,
  ApplyChangeResult,
  DebtLifecycleStart,
  DebtStatus,
  FiredTimer,
  Instalment,
  LifecycleChange,
  LifecycleChangeKind,
  LifecycleFailureType,
  LifecycleState,
  PaymentReport,
  PlanFrequency,
  PlanRequest,
  PlanState,
  PlanStatus,
  TimerPurpose,
} from '../core/lifecycle/model';

export interface DebtLifecycleActivityDeps {
  db: Db;
  /** The worker's mode and logger: each change is logged with its debt and workflow ids, and counted. */
  mode?: Mode;
  logger?: Logger;
  /** prom-client's default registry unless given. */
  registry?: Registry;
}

/** Lifecycle changes the workflow asked for, by kind and outcome (`applied` ones are the transitions). */
function transitionsCounter(registry: Registry) {
  return counterOnce(registry, {
    name: 'client_api_lifecycle_transitions_total',
    help: 'Debt lifecycle changes by kind (accept, dispute, payment, default, ...) and outcome (applied, refused, duplicate, impossible)',
    labelNames: ['mode', 'change', 'outcome'] as const,
  });
}

export interface LoadedDebtLifecycle {
  organizationId: string;
  state: LifecycleState;
}

function nonRetryable(err: LifecycleIntegrityError): ApplicationFailure {
  return ApplicationFailure.nonRetryable(err.message, err.type);
}

export function createDebtLifecycleActivities(deps: DebtLifecycleActivityDeps) {
  const { db } = deps;
  const transitions = transitionsCounter(deps.registry ?? register);
  const mode = deps.mode ?? 'production';
  const logger = deps.logger ?? silentLogger;

  return {
    /** The debt's organisation and state as the row has it (a workflow's start, or after continue-as-new). */
    async loadDebtLifecycle(debtId: string): Promise<LoadedDebtLifecycle> {
      // The first task has come: the start recorded for it is done (admission by progress, lifecycle-consumer.ts).
      const [loaded] = await Promise.all([
        loadLifecycleState(db, debtId),
        db('lifecycle_pending_starts').where({ debt_id: debtId }).delete(),
      ]);
      if (!loaded) {
        throw ApplicationFailure.nonRetryable(`Debt ${debtId} does not exist.`, LIFECYCLE_FAILURE_TYPES.debtNotFound);
      }
      return loaded;
    },

    /** Applies one change with its events; `applied`, `duplicate` or `refused` (with the API's code and detail). */
    async applyDebtLifecycleChange(input: ApplyChangeInput): Promise<ApplyChangeResult> {
      const log = activityLogger(logger, { debtId: input.debtId, requestId: requestIdOfUpdate(input.updateId) });
      try {
        const result = await applyLifecycleChange(db, input);
        transitions.inc({ mode, change: input.change.kind, outcome: result.outcome });
        log.info(
          { change: input.change.kind, outcome: result.outcome, status: result.state.status },
          'lifecycle change',
        );
        return result;
      } catch (err) {
        if (!(err instanceof LifecycleIntegrityError)) throw err;
        transitions.inc({ mode, change: input.change.kind, outcome: 'impossible' });
        log.error({ change: input.change.kind, failure: err.type, err: err.message }, 'lifecycle change impossible');
        throw nonRetryable(err);
      }
    },
  };
}

export type DebtLifecycleActivities = ReturnType<typeof createDebtLifecycleActivities>;
