/**
 * The one layout of the debtor portal's pages: the organisation's branding in the header (logo, name, tagline; its
 * colours through the theme stylesheet), one `<main>` with one `<h1>`, and a footer naming the creditor and the
 * collector with the collector's contact details. Before the second factor the frame is the collector's alone: no
 * creditor name or branding is shown to someone who has only the link.
 */
import type { ComponentChildren } from 'preact';
import type { Branding } from '../../core/branding/branding';
import type { PortalConfig } from '../../core/platform/portal-config';
import { CsrfField } from '../layout';

export interface PortalFrame {
  /** Null before the second factor is proven. */
  creditorName: string | null;
  branding: Branding;
  collector: PortalConfig['collector'];
  /** A verified visit: the header offers "Sign out". */
  csrfToken?: string;
}

export interface PortalLayoutProps {
  title: string;
  stylesheetHref: string;
  themeHref: string;
  frame: PortalFrame;
  children: ComponentChildren;
}

export function PortalLayout({ title, stylesheetHref, themeHref, frame, children }: PortalLayoutProps) {
  const { branding, creditorName, collector } = frame;
  const heading = creditorName ?? collector.name;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${heading}`}</title>
        <link rel="stylesheet" href={stylesheetHref} />
        <link rel="stylesheet" href={themeHref} />
        {branding.faviconUrl && <link rel="icon" href={branding.faviconUrl} />}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="portal-header">
          <div class="portal-brand">
            {branding.logoUrl && <img class="portal-logo" src={branding.logoUrl} alt="" />}
            <span class="portal-name">{heading}</span>
            {branding.brandTagline && <span class="portal-tagline">{branding.brandTagline}</span>}
          </div>
          {frame.csrfToken && (
            <form method="post" action="/portal/sign-out" class="portal-sign-out">
              <CsrfField token={frame.csrfToken} />
              <button type="submit">Sign out</button>
            </form>
          )}
        </header>
        <main id="main">
          <h1>{title}</h1>
          {children}
        </main>
        <PortalFooter frame={frame} />
      </body>
    </html>
  );
}

function PortalFooter({ frame }: { frame: PortalFrame }) {
  const { branding, creditorName, collector } = frame;
  const creditorContact = [branding.supportEmail, branding.supportPhone].filter(Boolean) as string[];
  return (
    <footer class="portal-footer">
      {creditorName && (
        <p>
          This account is owed to <strong>{creditorName}</strong>.
          {creditorContact.length > 0 && ` You can also contact ${creditorName}: ${creditorContact.join(' or ')}.`}
        </p>
      )}
      <p>
        {collector.name} looks after this account{creditorName ? ' for them' : ''}. Questions? Email{' '}
        <a href={`mailto:${collector.email}`}>{collector.email}</a> or call{' '}
        <a href={`tel:${collector.phone.replace(/[^\d+]/g, '')}`}>{collector.phone}</a> ({collector.hours}).
      </p>
      {creditorName && branding.statementFooter && <p class="portal-statement">{branding.statementFooter}</p>}
    </footer>
  );
}
