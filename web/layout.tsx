/**
 * The one layout of the console's pages: skip link, header with the navigation (when signed in) and the sign-out
 * buttons, one `<main>` with one `<h1>`. Every form a page renders carries the session's CSRF token (`CsrfField`).
 */
import type { ComponentChildren } from 'preact';
import { canReadAudit } from '../core/staff/roles';
import { isStaffRole } from '../core/staff/staff-users';

export interface PageUser {
  email: string;
  role: string;
  csrfToken: string;
}

export interface LayoutProps {
  title: string;
  stylesheetHref: string;
  /** Signed-in pages show the navigation and the sign-out buttons. */
  user?: PageUser;
  /** `production` or `sandbox`: said in the header so nobody mistakes one host for the other. */
  mode: string;
  children: ComponentChildren;
}

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export function Layout({ title, stylesheetHref, user, mode, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Client console (${mode})`}</title>
        <link rel="stylesheet" href={stylesheetHref} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">Client console · {mode}</span>
          {user && (
            <>
              <nav aria-label="Console">
                <ul>
                  <li>
                    <a href="/console">Overview</a>
                  </li>
                  <li>
                    <a href="/console/keys">API keys</a>
                  </li>
                  <li>
                    <a href="/console/debts">Debts</a>
                  </li>
                  <li>
                    <a href="/console/debtors">Debtors</a>
                  </li>
                  <li>
                    <a href="/console/placements">Placements</a>
                  </li>
                  <li>
                    <a href="/console/branding">Branding</a>
                  </li>
                  <li>
                    <a href="/console/portal-settings">Debtor portal</a>
                  </li>
                  <li>
                    <a href="/console/team">Team</a>
                  </li>
                  <li>
                    <a href="/console/webhooks">Webhooks</a>
                  </li>
                  <li>
                    <a href="/console/deliveries">Deliveries</a>
                  </li>
                  <li>
                    <a href="/console/events">Events</a>
                  </li>
                  {mode === 'sandbox' && (
                    <>
                      <li>
                        <a href="/console/sandbox">Sandbox</a>
                      </li>
                      <li>
                        <a href="/console/notifications">Debtor emails</a>
                      </li>
                    </>
                  )}
                  {isStaffRole(user.role) && canReadAudit(user.role) && (
                    <li>
                      <a href="/console/audit">Audit log</a>
                    </li>
                  )}
                </ul>
              </nav>
              <span>
                {user.email} ({user.role})
              </span>
              <form method="post" action="/console/sign-out">
                <CsrfField token={user.csrfToken} />
                <button type="submit">Sign out</button>
              </form>
              <form method="post" action="/console/sign-out-everywhere">
                <CsrfField token={user.csrfToken} />
                <button type="submit">Sign out everywhere</button>
              </form>
            </>
          )}
        </header>
        <main id="main">
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}
