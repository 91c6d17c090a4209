/** The problem catalogue as pages: the same code, status and detail a client of the API would get. */
import { ERROR_CATALOGUE, type ErrorCode } from '../../../core/platform/errors';

const TITLES: Partial<Record<ErrorCode, string>> = {
  not_found: 'Not found',
  forbidden: 'Not allowed',
  unauthenticated: 'Sign-in required',
  rate_limited: 'Too many requests',
  payload_too_large: 'Form too large',
  unsupported_media_type: 'Unsupported form',
  invalid_request: 'Invalid request',
  invalid_state: 'Not possible in this state',
  method_not_allowed: 'Method not allowed',
  internal_error: 'Something went wrong',
  invalid_url: 'Receiver URL refused',
  no_webhook_configured: 'No receiver set',
  service_unavailable: 'Temporarily unavailable',
};

export function errorTitle(code: ErrorCode): string {
  return TITLES[code] ?? code.replace(/_/g, ' ');
}

export function ErrorBody({ code, detail, requestId }: { code: ErrorCode; detail: string; requestId?: string }) {
  return (
    <section class="card">
      <p>{detail}</p>
      <p class="muted">
        Error <code>{code}</code> (HTTP {ERROR_CATALOGUE[code].status}){requestId ? `, request ${requestId}` : ''}.
      </p>
      <p>
        <a href="/console">Back to the console</a>
      </p>
    </section>
  );
}
