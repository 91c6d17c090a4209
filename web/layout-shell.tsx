/**
 * A console page's HTML, `<!doctype html>` included: the same text as rendering `Layout` around the body, with the
 * layout rendered once per frame (the host's mode and stylesheet, the signed-in user's organisation, email and role,
 * whether a flash message or a refresh is shown) and kept as text around what changes from page to page — the title
 * (the document's and the heading's), the session's CSRF token, the flash message and the body. The header's
 * navigation and forms were rendered again for every page, the same each time (as the portal's layout was:
 * web/portal/portal-layout.tsx). test/unit/console-layout-shell.test.ts holds the two renderings equal.
 */
import { randomBytes } from 'node:crypto';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { cachedIn } from '../core/platform/bounded-cache';
import { Layout, type LayoutProps } from './layout';

type Slot = 'title' | 'csrf' | 'flash' | 'body';

export function renderConsolePage(props: Omit<LayoutProps, 'children'>, body: VNode): string {
  const shell = shellOf(props);
  const values: Record<Slot, string> = {
    title: escapedText(props.title),
    csrf: props.user ? escapedText(props.user.csrfToken) : '',
    flash: props.flash ? escapedText(props.flash) : '',
    body: renderToString(body),
  };
  let html = shell.texts[0]!;
  for (let i = 0; i < shell.slots.length; i++) html += values[shell.slots[i]!] + shell.texts[i + 1]!;
  return html;
}

/**
 * The slots' stand-ins: text the renderer passes through unescaped (no `"`, `&` or `<`) around 128 random bits drawn
 * when the shell is made, so no stored text (an organisation's name, an email) can forge one and receive the CSRF
 * token.
 */
function slotMarkers(): { marked: (slot: Slot) => string; slots: RegExp } {
  const mark = `\u0001${randomBytes(16).toString('hex')}`;
  return {
    marked: (slot) => `${mark}${slot}\u0001`,
    slots: new RegExp(`${mark}(title|csrf|flash|body)\u0001`),
  };
}

interface Shell {
  /** The layout's text between the slots: one more than the slots. */
  texts: string[];
  slots: Slot[];
}

const shells = new Map<string, Shell>();

function shellOf({ stylesheetHref, user, mode, flash, refreshSeconds }: Omit<LayoutProps, 'children'>): Shell {
  const frame = user ? [user.organizationName, user.email, user.role] : null;
  // A flash message is shown when it is not empty: its shell differs from the one without.
  const key = JSON.stringify([stylesheetHref, mode, frame, Boolean(flash), refreshSeconds ?? null]);
  return cachedIn(shells, key, () => {
    const { marked, slots } = slotMarkers();
    const html = `<!doctype html>${renderToString(
      <Layout
        title={marked('title')}
        stylesheetHref={stylesheetHref}
        user={user ? { ...user, csrfToken: marked('csrf') } : undefined}
        mode={mode}
        flash={flash ? marked('flash') : undefined}
        refreshSeconds={refreshSeconds}
      >
        {marked('body')}
      </Layout>,
    )}`;
    const pieces = html.split(slots); // text, slot, text, slot, …, text
    return {
      texts: pieces.filter((_, i) => i % 2 === 0),
      slots: pieces.filter((_, i) => i % 2 === 1) as Slot[],
    };
  });
}

/** Text as the renderer escapes it, by the renderer itself. */
function escapedText(text: string): string {
  return renderToString(<>{text}</>);
}
