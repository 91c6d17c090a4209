/**
 * The one layout of the debtor portal's pages: the organisation's branding in the header (logo, name, tagline; its
 * colours through the theme stylesheet), one `<main>` with one `<h1>`, and a footer naming the creditor and the
 * collector with the collector's contact details. Before the second factor the frame is the collector's alone: no
 * creditor name or branding is shown to someone who has only the link.
 */
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Branding } from '../../core/branding/branding';
import type { PortalConfig } from '../../core/platform/portal-config';
import { CsrfField } from '../layout';
import { escapedText, pageShells } from '../page-shell';

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
  /** The `<title>`'s own text, when not the heading's: "Error: …" on a page that refused an answer (GOV.UK's way). */
  documentTitle?: string;
  stylesheetHref: string;
  themeHref: string;
  frame: PortalFrame;
  children: ComponentChildren;
}

export function PortalLayout({ title, documentTitle, stylesheetHref, themeHref, frame, children }: PortalLayoutProps) {
  const { branding, creditorName, collector } = frame;
  const heading = creditorName ?? collector.name;
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${documentTitle ?? title} · ${heading}`}</title>
        <link rel="stylesheet" href={stylesheetHref} />
        <link rel="stylesheet" href={themeHref} />
        {branding.faviconUrl && <link rel="icon" href={branding.faviconUrl} />}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="portal-header">
          <div class="portal-header-inner">
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
          </div>
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

const renderThroughShell = pageShells({
  slots: ['documentTitle', 'title', 'csrf', 'body'] as const,
  frameKey: ({ stylesheetHref, themeHref, frame }: Omit<PortalLayoutProps, 'children'>) => [
    stylesheetHref,
    themeHref,
    frame.creditorName,
    frame.branding,
    frame.collector,
    frame.csrfToken !== undefined, // a verified visit
  ],
  layout: ({ stylesheetHref, themeHref, frame }, marked) => (
    <PortalLayout
      title={marked('title')}
      documentTitle={marked('documentTitle')}
      stylesheetHref={stylesheetHref}
      themeHref={themeHref}
      frame={{ ...frame, csrfToken: frame.csrfToken !== undefined ? marked('csrf') : undefined }}
    >
      {marked('body')}
    </PortalLayout>
  ),
});

/**
 * A portal page's HTML, `<!doctype html>` included: the same text as rendering `PortalLayout` around `body`, with the
 * layout rendered once per frame (an organisation's branding and name, and whether a visit is verified) and kept as
 * text around the title (the document's and the heading's), the visit's CSRF token and the body
 * (web/page-shell.tsx); test/unit/portal-layout-shell.test.ts holds the two renderings equal.
 */
export function renderPortalPage(props: Omit<PortalLayoutProps, 'children'>, body: VNode): string {
  return renderThroughShell(props, {
    documentTitle: escapedText(props.documentTitle ?? props.title),
    title: escapedText(props.title),
    csrf: props.frame.csrfToken === undefined ? '' : escapedText(props.frame.csrfToken),
    body: renderToString(body),
  });
}
