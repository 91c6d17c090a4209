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
  /** The organisation the user is signed in to: the header and the title name it. */
  organizationName: string;
}

export interface LayoutProps {
  title: string;
  stylesheetHref: string;
  /** Signed-in pages show the navigation and the sign-out buttons. */
  user?: PageUser;
  /** `production` or `sandbox`: said in the header so nobody mistakes one host for the other. */
  mode: string;
  /** The message of the write just made (shared/flash.ts), shown once under the heading. */
  flash?: string;
  /** Reload the page after this many seconds (a `<meta http-equiv="refresh">`: progress shown without script). */
  refreshSeconds?: number;
  children: ComponentChildren;
}

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

export function Layout({ title, stylesheetHref, user, mode, flash, refreshSeconds, children }: LayoutProps) {
  const where = user?.organizationName ? `${user.organizationName} (${mode})` : mode;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${where} · Client console`}</title>
        <link rel="stylesheet" href={stylesheetHref} />
        {refreshSeconds !== undefined && <meta http-equiv="refresh" content={String(refreshSeconds)} />}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">
            {user?.organizationName ? (
              <>
                <span class="org">{user.organizationName}</span> <span class={`mode mode-${mode}`}>{mode}</span>{' '}
                <span class="product">Client console</span>
              </>
            ) : (
              <>Client console · {mode}</>
            )}
          </span>
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
              <form method="get" action="/console/search" role="search" class="header-search">
                <label for="console-search" class="visually-hidden">
                  Find a debt, debtor, event, delivery or request
                </label>
                <input id="console-search" type="search" name="q" placeholder="Find an id, reference or email" />
                <button type="submit">Find</button>
              </form>
              <div class="account">
                <span class="who" title={`${user.email} (${user.role})`}>
                  <span class="email">{user.email}</span> <span class="role">({user.role})</span>
                </span>
                <form method="post" action="/console/sign-out">
                  <CsrfField token={user.csrfToken} />
                  <button type="submit">Sign out</button>
                </form>
                <form method="post" action="/console/sign-out-everywhere">
                  <CsrfField token={user.csrfToken} />
                  <button type="submit">Sign out everywhere</button>
                </form>
              </div>
            </>
          )}
        </header>
        <main id="main">
          <h1>{title}</h1>
          {flash && (
            <p class="flash" role="status">
              {flash}
            </p>
          )}
          {children}
        </main>
      </body>
    </html>
  );
}
