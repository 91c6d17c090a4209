/**
 * Every Temporal name in one place (STYLE.md §9): namespaces, task queues, workflow types, workflow ids and search
 * attributes. Workflows, workers, the relay, the dev orchestrator and the tests take them from here; a test fails when
 * one of these literals appears anywhere else (test/unit/temporal-names.test.ts).
 * Workflow code imports this module, so it must stay deterministic: no Node built-ins, no I/O.
 */
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { Mode } from '../platform/mode';

/** One namespace per mode (DECISIONS.md §1): production and sandbox never share workflows. */
export const NAMESPACES: Readonly<Record<Mode, string>> = {
  production: 'client-api-production',
  sandbox: 'client-api-sandbox',
};

export const TASK_QUEUES = {
  webhooks: 'webhooks',
  lifecycle: 'lifecycle',
  /**
   * Placements' own workflows and activities, in a worker process of their own (workers/placements.ts, at a lower CPU
   * priority): an import's next chunk never waits behind the lifecycles it has just started, and another tenant's
   * lifecycles and mail never wait behind an import's chunk.
   */
  placements: 'placements',
  sandbox: 'sandbox',
} as const;

export type TaskQueueName = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];

/** The queues with a worker process of their own (`workers/<queue>.ts`, a compose service and a supervisor program each). */
export const WORKER_PROCESS_QUEUES = [
  TASK_QUEUES.webhooks,
  TASK_QUEUES.lifecycle,
  TASK_QUEUES.placements,
  TASK_QUEUES.sandbox,
] as const;

/** Workflow type names: the exported function names of workflows/, registered through workflows/bundles/. */
export const WORKFLOW_TYPES = {
  webhookDelivery: 'webhookDeliveryWorkflow',
  debtLifecycle: 'debtLifecycleWorkflow',
  webhookReconcile: 'webhookReconcileWorkflow',
  retentionPurge: 'retentionPurgeWorkflow',
  diagnosticProbe: 'diagnosticProbeWorkflow',
  sandboxReset: 'sandboxResetWorkflow',
  instalmentReminders: 'instalmentRemindersWorkflow',
  testPaymentFailure: 'testPaymentFailureWorkflow',
  placement: 'placementWorkflow',
} as const;

/** The updates a debt's lifecycle workflow takes: each is one trigger of DECISIONS.md §3 (and the sandbox's advance). */
export const LIFECYCLE_UPDATES = {
  accept: 'accept',
  dispute: 'dispute',
  resolveDispute: 'resolveDispute',
  agreePlan: 'agreePlan',
  reportPayment: 'reportPayment',
  close: 'close',
  writeOff: 'writeOff',
  advance: 'advance',
} as const;

/**
 * Patch ids of `patched()` in workflow code (docs/lifecycle.md "Changing the workflow"): each names one change made to
 * a workflow while runs of the old code may still be open, and stays until no history from before it can replay.
 */
export const PATCH_IDS = {
  /** A trigger that leaves the status and the plan's timer as they were no longer cancels and restarts that timer. */
  lifecycleKeepUnchangedTimer: 'lifecycle-keep-unchanged-timer',
  /** A delivery's attempts run as local activities (workflows/webhook-delivery.ts), no longer as activity tasks. */
  deliveryAttemptLocal: 'delivery-attempt-local',
  /** A plan timer whose effect failed is retried after reloading the state, instead of failing the run. */
  lifecycleRetryFailedTimer: 'lifecycle-retry-failed-timer',
  /** The sandbox's `advance` with `until` fires every timer due up to it, no longer only the next one. */
  lifecycleAdvanceUntil: 'lifecycle-advance-until',
  /** A delivery waiting between attempts takes the `retryNow` signal: the next attempt at once, the rest as before. */
  deliveryRetryNow: 'delivery-retry-now',
  /** A placement's run whose placement is gone (a sandbox reset) ends `Gone` instead of failing. */
  placementGoneEndsRun: 'placement-gone-ends-run',
  /** A debt's run loads its state first as a local activity (in its first workflow task), no longer an activity task. */
  lifecycleLoadLocal: 'lifecycle-load-local',
} as const;

/**
 * The failure type of a placement's step whose placement's row is gone once the run has begun (deleted by a sandbox
 * reset): non-retryable, so the run ends instead of retrying for ever (activities/placements.ts, workflows/placement.ts).
 */
export const PLACEMENT_GONE_FAILURE = 'PlacementGone';

/** The signals a delivery's run takes: `retryNow` (the console's Retry now on a delivery waiting to retry). */
export const DELIVERY_SIGNALS = { retryNow: 'retryNow' } as const;

/** The signals a tenant's `sandbox-reset-<orgId>` workflow takes: an API use (debounced), and a reset on demand. */
export const SANDBOX_RESET_SIGNALS = { used: 'used', resetNow: 'resetNow' } as const;

/** Queries every long-lived workflow answers: `state` (the lifecycle's) and `status`. */
export const QUERIES = { state: 'state', status: 'status' } as const;

/** Business ids as workflow ids make dispatch idempotent: starting an existing id is a no-op. */
export const workflowIds = {
  /**
   * One id per run of a delivery: `webhook-delivery-<deliveryId>` for the first, `…-g<n>` for generation n (a manual
   * retry or a reconciler restart), so a new run never collides with a previous one that is still closing. Every run
   * of a delivery: `WorkflowId STARTS_WITH "webhook-delivery-<deliveryId>"`.
   */
  webhookDelivery: (deliveryId: string, generation = 0) =>
    generation === 0 ? `webhook-delivery-${deliveryId}` : `webhook-delivery-${deliveryId}-g${generation}`,
  debt: (debtId: string) => `debt-${debtId}`,
  sandboxReset: (organizationId: string) => `sandbox-reset-${organizationId}`,
  diagnosticProbe: (probeId: string) => `diagnostic-probe-${probeId}`,
  /** One per plan: the reminders before its instalments, keyed by the plan's `plan.activated` event. */
  instalmentReminders: (planEventId: string) => `instalment-reminders-${planEventId}`,
  /** The test-mode processor's later failure of one payment attempt (core/payments/later-failure.ts). */
  testPayment: (attemptId: string) => `test-payment-${attemptId}`,
  /** One per uploaded placement file: its validation and import (core/placements). */
  placement: (placementId: string) => `placement-${placementId}`,
};

/** Temporal Schedules, created idempotently by the worker that serves their workflow. */
export const SCHEDULE_IDS = {
  /** Every few minutes: restart deliveries whose workflow is gone (core/webhooks/reconcile.ts). */
  webhookReconcile: 'webhook-reconciler',
  /** Every quarter hour: purge rows past their retention period (core/retention/purge.ts). */
  retentionPurge: 'retention-purge',
} as const;

/** Custom search attributes, all Keyword: registered on every namespace by the dev orchestrator and the tests. */
export const SEARCH_ATTRIBUTE_KEYS = {
  organizationId: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD),
  debtId: defineSearchAttributeKey('DebtId', SearchAttributeType.KEYWORD),
  eventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  deliveryStatus: defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD),
  debtStatus: defineSearchAttributeKey('DebtStatus', SearchAttributeType.KEYWORD),
  /** The API request (`X-Request-Id`) whose event caused the workflow: a delivery's, or a debt's creation. */
  requestId: defineSearchAttributeKey('RequestId', SearchAttributeType.KEYWORD),
  /** A placement's status (Validating, Importing, Completed, …), kept current by its workflow. */
  placementStatus: defineSearchAttributeKey('PlacementStatus', SearchAttributeType.KEYWORD),
} as const;

export const SEARCH_ATTRIBUTES = Object.values(SEARCH_ATTRIBUTE_KEYS).map((key) => key.name);

/**
 * The search attributes a webhook delivery run is found by while Pending: set by the delivery starter when it starts
 * the run, or by the workflow's first task for a run started without them (workflows/webhook-delivery.ts).
 */
export function pendingDeliverySearchAttributes(organizationId: string, eventType: string): SearchAttributePair[] {
  return [
    { key: SEARCH_ATTRIBUTE_KEYS.organizationId, value: organizationId },
    { key: SEARCH_ATTRIBUTE_KEYS.eventType, value: eventType },
    { key: SEARCH_ATTRIBUTE_KEYS.deliveryStatus, value: 'Pending' },
  ];
}
