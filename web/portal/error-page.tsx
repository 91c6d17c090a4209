/** The problem catalogue as portal pages, in plain words; the status is the problem's own. */
import type { ErrorCode } from '../../core/platform/errors';

const TITLES: Partial<Record<ErrorCode, string>> = {
  not_found: 'Page not found',
  forbidden: 'This form has expired',
  unauthenticated: 'Please open your link again',
  rate_limited: 'Too many tries',
  payload_too_large: 'Too much text',
  unsupported_media_type: 'That form could not be read',
  invalid_request: 'Please check what you entered',
  invalid_state: 'That cannot be done now',
  method_not_allowed: 'Page not found',
  internal_error: 'Something went wrong',
  service_unavailable: 'Please try again shortly',
};

export function portalErrorTitle(code: ErrorCode): string {
  return TITLES[code] ?? 'Something went wrong';
}

export function PortalErrorBody(props: { code: ErrorCode; detail: string; requestId?: string; signedIn: boolean }) {
  return (
    <section class="card" role="alert">
      <p>{props.detail}</p>
      {props.code === 'invalid_state' && <p>Nothing has changed. Your account page shows what you can do now.</p>}
      {props.signedIn && (
        <p>
          <a href="/portal/debt">Back to your account</a>
        </p>
      )}
      <p class="muted">If you contact us about this, quote reference {props.requestId ?? props.code}.</p>
    </section>
  );
}
