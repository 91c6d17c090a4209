/**
 * The one layout of the /docs/ pages, and the Mermaid bundle they draw diagrams with: served by this host from the
 * `mermaid` npm package (no CDN, so the diagrams render offline), under a versioned name with a year's cache.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface NavSection {
  title: string;
  guides: { slug: string; title: string; summary: string }[];
}

// The package exports no subpath for its browser bundle; its "./*" export reaches the files themselves.
const MERMAID_DIR = path.dirname(require.resolve('mermaid/package.json'));
const MERMAID_VERSION = (
  JSON.parse(readFileSync(path.join(MERMAID_DIR, 'package.json'), 'utf8')) as { version: string }
).version;

/** `/docs/assets/<file>`: the Mermaid browser bundle, named by its version so that a year's cache is safe. */
export const MERMAID_ASSET = {
  file: `mermaid-${MERMAID_VERSION}.min.js`,
  path: path.join(MERMAID_DIR, 'dist', 'mermaid.min.js'),
};

const STYLE = `
body{font:16px/1.55 system-ui,sans-serif;margin:0;display:flex;color:#1b1f24}
nav{width:16rem;flex:none;padding:1.5rem;background:#f4f6f8;min-height:100vh;box-sizing:border-box}
nav h2{font-size:.75rem;text-transform:uppercase;letter-spacing:.06em;color:#57606a;margin:1.2rem 0 .3rem}
nav a{display:block;margin:.25rem 0;color:#0b5cad;text-decoration:none}
nav a[aria-current]{font-weight:600;color:#1b1f24}
main{padding:1.5rem 2.5rem;max-width:56rem;min-width:0}
pre{background:#f4f6f8;padding:1rem;overflow:auto}code{font-family:ui-monospace,monospace}
pre.mermaid[data-processed]{background:none;border:1px solid #d0d7de;text-align:center}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left;vertical-align:top}
dt{margin-top:.6rem}dd{margin:0 0 0 1rem;color:#424a53}
.aside{color:#57606a;font-size:.9rem;margin-top:2rem}
`;

export function docsLayout(title: string, nav: NavSection[], body: string, current?: string): string {
  const links = nav
    .map(
      (section) =>
        `<h2>${escapeHtml(section.title)}</h2>${section.guides
          .map(
            (g) =>
              `<a href="/docs/${g.slug}"${g.slug === current ? ' aria-current="page"' : ''}>${escapeHtml(g.title)}</a>`,
          )
          .join('')}`,
    )
    .join('');
  // The bundle is 3.5 MB: only pages with a diagram load it.
  const diagrams = body.includes('<pre class="mermaid">')
    ? `<script src="/docs/assets/${MERMAID_ASSET.file}"></script>
<script>mermaid.initialize({ startOnLoad: true, securityLevel: 'strict', theme: 'neutral' });</script>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Client Public API</title><link rel="icon" href="data:,">
<style>${STYLE}</style></head>
<body><nav aria-label="Guides"><a href="/docs/"><strong>Client Public API guides</strong></a>${links}
<h2>Reference</h2><a href="/reference">API reference</a><a href="/swagger">Swagger UI</a></nav>
<main>${body}</main>${diagrams}</body></html>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
