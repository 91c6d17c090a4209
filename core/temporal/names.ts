/**
 * Every Temporal name in one place (STYLE.md §9): task queues, workflow ids, search attributes.
 * Workflow code may import this module: it has no Node dependencies.
 */
export const TASK_QUEUES = {
  webhooks: 'webhooks',
  lifecycle: 'lifecycle',
  sandbox: 'sandbox',
} as const;

export type TaskQueueName = (typeof TASK_QUEUES)[keyof typeof TASK_QUEUES];

/** Custom search attributes (all Keyword), registered on every namespace by the bootstrap and the test harness. */
export const SEARCH_ATTRIBUTES = ['OrganizationId', 'DebtId', 'EventType', 'DeliveryStatus', 'DebtStatus'] as const;

export type SearchAttributeName = (typeof SEARCH_ATTRIBUTES)[number];

/** Business ids as workflow ids make dispatch idempotent: starting an existing id is a no-op. */
export const workflowIds = {
  webhookDelivery: (deliveryId: string) => `webhook-delivery-${deliveryId}`,
  debt: (debtId: string) => `debt-${debtId}`,
  sandboxReset: (organizationId: string) => `sandbox-reset-${organizationId}`,
};
