/**
 * A page's layout rendered once per frame and kept as text around the things that change from page to page (its
 * slots: a title, a CSRF token, a flash message, the body). Rendering the layout again for every page, the same each
 * time, was a third of a page's rendering. The console's layout (web/layout-shell.tsx) and the portal's
 * (web/portal/portal-layout.tsx) each say what their frame and slots are; their unit tests hold the shell's text equal
 * to rendering the layout whole.
 */
import { randomBytes } from 'node:crypto';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { cachedIn } from '../core/platform/bounded-cache';

interface Shell<Slot extends string> {
  /** The layout's text between the slots: one more than the slots. */
  texts: string[];
  slots: Slot[];
}

/**
 * Pages rendered through shells: `frameKey` names what the layout depends on besides its slots (one shell each), and
 * `layout` renders it with each slot's stand-in. Returns the renderer of a page from its props and its slots' text.
 */
export function pageShells<Props, Slot extends string>(options: {
  slots: readonly Slot[];
  frameKey: (props: Props) => unknown;
  layout: (props: Props, marked: (slot: Slot) => string) => VNode;
}): (props: Props, values: Record<Slot, string>) => string {
  const shells = new Map<string, Shell<Slot>>();
  return (props, values) => {
    const shell = cachedIn(shells, JSON.stringify(options.frameKey(props)), () => {
      const { marked, slots } = slotMarkers(options.slots);
      const pieces = `<!doctype html>${renderToString(options.layout(props, marked))}`.split(slots); // text, slot, …
      return {
        texts: pieces.filter((_, i) => i % 2 === 0),
        slots: pieces.filter((_, i) => i % 2 === 1) as Slot[],
      };
    });
    let html = shell.texts[0]!;
    for (let i = 0; i < shell.slots.length; i++) html += values[shell.slots[i]!] + shell.texts[i + 1]!;
    return html;
  };
}

/**
 * The slots' stand-ins: text the renderer passes through unescaped (no `"`, `&` or `<`) around 128 random bits drawn
 * when the shell is made, so no stored text (an organisation's name, an email, a branding field) can forge one and
 * receive the CSRF token.
 */
function slotMarkers<Slot extends string>(names: readonly Slot[]): { marked: (slot: Slot) => string; slots: RegExp } {
  const mark = `\u0001${randomBytes(16).toString('hex')}`;
  return {
    marked: (slot) => `${mark}${slot}\u0001`,
    slots: new RegExp(`${mark}(${names.join('|')})\u0001`),
  };
}

/** Text as the renderer escapes it, by the renderer itself. */
export function escapedText(text: string): string {
  return renderToString(<>{text}</>);
}
