/** The event types, as the document's `webhooks` lists them. */
import type { webhooks } from './generated/openapi';

export type EventType = keyof webhooks;
