/**
 * The one catalogue of error codes (STYLE.md §2). It feeds the problem renderer, the OpenAPI document's error
 * responses and the errors guide, so a code cannot exist in one place and not the others.
 */

export interface ErrorDefinition {
  status: number;
  /** One sentence for the guide and the OpenAPI description: when this happens. */
  when: string;
  /** One sentence for the guide: what the client should do. */
  action: string;
  /** Default `detail` when the thrower gives none. */
  detail: string;
}

export const ERROR_CATALOGUE = {
  invalid_request: {
    status: 400,
    when: 'The request is malformed or fails validation (body, query or path parameters, cursor, Idempotency-Key).',
    action: 'Fix the request using `detail` and the `errors` list; do not retry unchanged.',
    detail: 'The request is invalid.',
  },
  missing_debtor: {
    status: 400,
    when: 'A debt was raised with neither `debtorId` nor the inline debtor fields.',
    action: 'Send `debtorId`, or `debtorReferenceId`, `debtorFirstName`, `debtorLastName` and an email or phone.',
    detail: 'A debt needs a debtor: send debtorId or the inline debtor fields.',
  },
  debtor_not_found: {
    status: 400,
    when: 'The `debtorId` in the body does not name a debtor of your organisation.',
    action: 'Check the id with `GET /v1/debtors`, or use the inline debtor form.',
    detail: 'No debtor with that id exists in your organisation.',
  },
  invalid_principal: {
    status: 400,
    when: 'The principal is not a positive decimal with at most the currency’s minor-unit digits.',
    action: 'Send a number greater than zero, e.g. `1250.50` for AUD or `1250` for JPY.',
    detail: 'The principal must be a positive amount in the currency’s precision.',
  },
  missing_external_account_id: {
    status: 400,
    when: '`externalAccountId` is missing or empty when raising a debt.',
    action: 'Send your own account reference for the debt as `externalAccountId`.',
    detail: 'externalAccountId is required.',
  },
  invalid_color: {
    status: 400,
    when: 'A branding colour is not a `#RRGGBB` hex string.',
    action: 'Send colours such as `#1A2B3C`.',
    detail: 'Colours must be #RRGGBB hex strings.',
  },
  invalid_url: {
    status: 400,
    when: 'A URL is not an absolute https URL, or points at a non-public address.',
    action: 'Send an absolute `https://` URL on a public host.',
    detail: 'The URL must be an absolute https URL on a public host.',
  },
  unauthenticated: {
    status: 401,
    when: 'The bearer key is missing, malformed, unknown, revoked, or of the other mode (live vs test).',
    action: 'Send `Authorization: Bearer ak_live_…` to production or `ak_test_…` to the sandbox.',
    detail: 'A valid API key for this host is required.',
  },
  forbidden: {
    status: 403,
    when: 'The key is valid but lacks the scope the operation needs.',
    action: 'Mint a key with the scope named in `detail`.',
    detail: 'The API key lacks the scope this operation requires.',
  },
  read_only_key: {
    status: 403,
    when: 'A read-only key was used for an operation that writes.',
    action: 'Use a key without the `readOnly` flag for writes.',
    detail: 'This API key is read-only.',
  },
  not_found: {
    status: 404,
    when: 'The resource or route does not exist, or belongs to another organisation.',
    action: 'Check the id and path; ids of other organisations are never visible.',
    detail: 'The resource was not found.',
  },
  method_not_allowed: {
    status: 405,
    when: 'The path exists but not with this HTTP method.',
    action: 'Use one of the methods listed in the `Allow` header.',
    detail: 'This method is not allowed on this path.',
  },
  idempotency_conflict: {
    status: 409,
    when: 'The `Idempotency-Key` was already used with a different method, path or body.',
    action: 'Use a new key for a different request.',
    detail: 'This Idempotency-Key was used with a different request.',
  },
  idempotency_in_progress: {
    status: 409,
    when: 'A request with the same `Idempotency-Key` is still being processed.',
    action: 'Retry after a short delay; you will then receive the saved response.',
    detail: 'A request with this Idempotency-Key is still in progress.',
  },
  no_webhook_configured: {
    status: 409,
    when: 'The operation needs an enabled webhook configuration and there is none.',
    action: 'Configure a receiver with `PUT /v1/webhooks` first.',
    detail: 'No webhook receiver is configured.',
  },
  invalid_state: {
    status: 409,
    when: 'The requested change is not allowed in the resource’s current state.',
    action: 'Read the resource again and check its `status` before retrying.',
    detail: 'The resource’s current state does not allow this change.',
  },
  external_account_id_in_use: {
    status: 409,
    when: 'Another of your debts with the same `externalAccountId` is still open (not `Settled`, `WrittenOff` or `Closed`).',
    action:
      'Use the open debt (`existingDebtId`), or recall it (`PATCH` with `status: "Closed"`) or wait until it is ' +
      'finished before raising the account again.',
    detail: 'An open debt with this externalAccountId already exists.',
  },
  document_limit_reached: {
    status: 409,
    when: 'The debt already holds 50 documents, the most one debt can hold.',
    action: 'Attach fewer, larger files (combine pages into one PDF); documents are not removed through the API.',
    detail: 'A debt holds at most 50 documents; this one is full.',
  },
  payload_too_large: {
    status: 413,
    when: 'A JSON request body is larger than 1 MiB, or an uploaded document is larger than 10 MiB.',
    action: 'Send a smaller body; split or compress a document to 10 MiB or less.',
    detail: 'The request body exceeds 1 MiB.',
  },
  unsupported_media_type: {
    status: 415,
    when:
      'A request body was sent with a content type other than `application/json` (`multipart/form-data` for a ' +
      'document upload), or an uploaded document’s bytes are not a PDF, PNG or JPEG, whatever its name says.',
    action: 'Send JSON with `Content-Type: application/json`; upload documents as PDF, PNG or JPEG files.',
    detail: 'Request bodies must be application/json.',
  },
  rate_limited: {
    status: 429,
    when:
      'The key exceeded its hourly or daily request limit, too many failed authentications came from your ' +
      'address, or too many webhook URL checks of your organisation are in flight.',
    action: 'Wait `Retry-After` seconds; watch `X-RateLimit-Remaining` to pace requests.',
    detail: 'Rate limit exceeded.',
  },
  internal_error: {
    status: 500,
    when: 'An unexpected fault on our side.',
    action: 'Retry with exponential backoff; quote the `requestId` to support if it persists.',
    detail: 'An unexpected error occurred. Quote the requestId to support.',
  },
  service_unavailable: {
    status: 503,
    when: 'A dependency (database, cache or workflow engine) is not answering.',
    action: 'Retry with exponential backoff.',
    detail: 'A dependency is unavailable.',
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export interface FieldError {
  path: string;
  message: string;
}

/** The one error type thrown below the router; the problem middleware renders it. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail?: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; [key: string]: unknown } = {},
  ) {
    super(detail ?? ERROR_CATALOGUE[code].detail);
    this.name = 'ApiError';
    this.status = ERROR_CATALOGUE[code].status;
  }
}

/** Small factories so call sites read as sentences: `throw errors.notFound('debt')`. */
export const errors = {
  invalidRequest: (detail: string, fieldErrors?: FieldError[]) =>
    new ApiError('invalid_request', detail, fieldErrors ? { errors: fieldErrors } : {}),
  notFound: (what = 'resource') => new ApiError('not_found', `The ${what} was not found.`),
  /**
   * RFC 6750 §3: a 401 names the scheme in `WWW-Authenticate`, and says `error="invalid_token"` when a credential was
   * presented but is no good (malformed, unknown, revoked, of the other mode).
   */
  unauthenticated: (detail?: string, credentialPresented = true) =>
    new ApiError('unauthenticated', detail, {
      headers: { 'WWW-Authenticate': credentialPresented ? 'Bearer error="invalid_token"' : 'Bearer' },
    }),
  forbidden: (scope: string) => new ApiError('forbidden', `This operation requires the ${scope} scope.`),
  readOnlyKey: () => new ApiError('read_only_key'),
  internal: () => new ApiError('internal_error'),
};
