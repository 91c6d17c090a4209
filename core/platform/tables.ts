/**
 * Each table's row type, declared once for knex (`db('debts')` is then typed by its row): every table of
 * migrations/. A row type says what the pg driver returns for the column (NUMERIC and xid8 as strings, int8 as a
 * number — see db.ts, timestamps as Date) and lives with the domain that owns the table.
 */
import type { ApiKeyRow } from '../access/api-keys';
import type { OrganizationRow } from '../access/organizations';
import type { BrandingRow } from '../branding/branding';
import type { DebtorsTable } from '../debts/debtors';
import type { DocumentRow } from '../documents/documents';
import type { TransactionRow } from '../debts/transactions';
import type { EventRow } from '../events/outbox';
import type { LifecycleInputRow } from '../lifecycle/inputs';
import type { DebtsTable } from '../lifecycle/lifecycle-row';
import type { AuditLogTable } from '../staff/audit-log';
import type { ApiKeyCreatorRow } from '../staff/console-keys';
import type { StaffSignInTokenRow } from '../staff/magic-links';
import type { StaffUserRow } from '../staff/staff-users';
import type { AttemptRow, DeliveryRow } from '../webhooks/deliveries';
import type { WebhookConfigRow } from '../webhooks/receiver-config';
import type { IdempotencyKeyTable } from './idempotency-store';

declare module 'knex/types/tables' {
  interface Tables {
    organizations: OrganizationRow;
    api_keys: ApiKeyRow;
    idempotency_keys: IdempotencyKeyTable;
    events: EventRow;
    debtors: DebtorsTable;
    /** The API's columns plus the lifecycle's (`lifecycle_version`, `plan_schedule`). */
    debts: DebtsTable;
    lifecycle_inputs: LifecycleInputRow;
    transactions: TransactionRow;
    documents: DocumentRow;
    branding: BrandingRow;
    webhook_configs: WebhookConfigRow;
    webhook_deliveries: DeliveryRow;
    webhook_delivery_attempts: AttemptRow;
    staff_users: StaffUserRow;
    staff_sign_in_tokens: StaffSignInTokenRow;
    api_key_creators: ApiKeyCreatorRow;
    audit_log: AuditLogTable;
  }
}
