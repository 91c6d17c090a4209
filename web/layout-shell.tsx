/**
 * A console page's HTML, `<!doctype html>` included: the same text as rendering `Layout` around the body, with the
 * layout rendered once per frame (the host's mode and stylesheet, the signed-in user's organisation, email and role,
 * whether a flash message or a refresh is shown) and kept as text around what changes from page to page — the title
 * (the document's and the heading's), the session's CSRF token, the flash message and the body. The header's
 * navigation and forms were rendered again for every page, the same each time (as the portal's layout was:
 * web/portal/portal-layout.tsx; both through web/page-shell.tsx). test/unit/console-layout-shell.test.ts holds the two
 * renderings equal.
 */
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { Layout, type LayoutProps } from './layout';
import { escapedText, pageShells } from './page-shell';

type FrameProps = Omit<LayoutProps, 'children'>;

const renderThroughShell = pageShells({
  slots: ['title', 'csrf', 'flash', 'body'] as const,
  // A flash message is shown when it is not empty: its shell differs from the one without.
  frameKey: ({ stylesheetHref, user, mode, flash, refreshSeconds }: FrameProps) => [
    stylesheetHref,
    mode,
    user ? [user.organizationName, user.email, user.role] : null,
    Boolean(flash),
    refreshSeconds ?? null,
  ],
  layout: ({ stylesheetHref, user, mode, flash, refreshSeconds }, marked) => (
    <Layout
      title={marked('title')}
      stylesheetHref={stylesheetHref}
      user={user ? { ...user, csrfToken: marked('csrf') } : undefined}
      mode={mode}
      flash={flash ? marked('flash') : undefined}
      refreshSeconds={refreshSeconds}
    >
      {marked('body')}
    </Layout>
  ),
});

export function renderConsolePage(props: FrameProps, body: VNode): string {
  return renderThroughShell(props, {
    title: escapedText(props.title),
    csrf: props.user ? escapedText(props.user.csrfToken) : '',
    flash: props.flash ? escapedText(props.flash) : '',
    body: renderToString(body),
  });
}
