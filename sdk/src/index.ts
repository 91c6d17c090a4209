/** The Client Public API's TypeScript SDK (docs/sdk.md). */
export { baseUrlFor, createClient, DEFAULT_BASE_URLS, modeOfKey, retryAfterMs, type ApiClient } from './client';
export type { ClientOptions, Mode } from './client';
export type { EventType } from './events';
export type { components, operations, paths, webhooks } from './generated/openapi';
export { list, pages, type ListItem, type ListPath, type ListQuery } from './pagination';
export { ApiProblemError, isProblem, unwrap, type Problem, type ProblemCode } from './problems';
export {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  signPayload,
  verifyWebhook,
  WebhookSignatureError,
  type WebhookEvent,
} from './webhooks';
export { listen, pollOnce, readState, startState, type ListenOptions, type ListenState } from './listen';
