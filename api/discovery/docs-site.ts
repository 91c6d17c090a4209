/**
 * The guides at /docs/: the Markdown files of `docs/` rendered to HTML once, at start-up, plus one generated page
 * per error code so that every problem's `type` URI opens its documentation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { marked } from 'marked';
import { ApiError, ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../../core/platform/errors';

export interface DocsSite {
  indexPage(): string;
  guidePage(slug: string): string;
  errorPage(code: string): string;
}

interface Guide {
  slug: string;
  title: string;
  html: string;
}

/** Guides listed first, in reading order; any other Markdown file in docs/ follows alphabetically. */
const READING_ORDER = [
  'getting-started',
  'authentication',
  'errors',
  'pagination',
  'idempotency',
  'rate-limits',
  'versioning',
  'debts',
  'documents',
  'lifecycle',
  'webhooks',
  'sandbox',
  'product-choices',
  'architecture',
  'configuration',
];

export function loadDocsSite(docsDir: string): DocsSite {
  const guides = readGuides(docsDir);
  const bySlug = new Map(guides.map((g) => [g.slug, g]));
  const nav = guides.map((g) => `<a href="/docs/${g.slug}">${escapeHtml(g.title)}</a>`).join('');
  const index = layout(
    'Guides',
    nav,
    `<h1>Client Public API guides</h1><ul>${guides
      .map((g) => `<li><a href="/docs/${g.slug}">${escapeHtml(g.title)}</a></li>`)
      .join(
        '',
      )}</ul><p>Reference: <a href="/reference">/reference</a> · <a href="/swagger">/swagger</a> · <a href="/openapi/v1.json">/openapi/v1.json</a></p>`,
  );
  const errorPages = new Map(ERROR_CODES.map((code) => [code, layout(code, nav, errorBody(code))]));
  return {
    indexPage: () => index,
    guidePage: (slug) => {
      const guide = bySlug.get(slug);
      if (!guide) throw new ApiError('not_found', `No guide named ${slug}.`);
      return layout(guide.title, nav, guide.html);
    },
    errorPage: (code) => {
      const page = errorPages.get(code as ErrorCode);
      if (!page) throw new ApiError('not_found', `No error code named ${code}.`);
      return page;
    },
  };
}

function readGuides(docsDir: string): Guide[] {
  const slugs = readdirSync(docsDir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => f.slice(0, -3));
  const rank = (slug: string) => {
    const i = READING_ORDER.indexOf(slug);
    return i === -1 ? READING_ORDER.length : i;
  };
  slugs.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return slugs.map((slug) => {
    const markdown = expandGeneratedSections(readFileSync(path.join(docsDir, `${slug}.md`), 'utf8'));
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1] ?? slug;
    return { slug, title, html: marked.parse(markdown, { async: false }) };
  });
}

/**
 * `<!-- generated:error-codes -->` in a guide becomes the table of every error code, built from the catalogue that
 * also drives the responses and the OpenAPI document, so the guide cannot drift from the behaviour.
 */
export function expandGeneratedSections(markdown: string): string {
  return markdown.replace('<!-- generated:error-codes -->', errorCodesTable());
}

function errorCodesTable(): string {
  const rows = ERROR_CODES.map((code) => {
    const def = ERROR_CATALOGUE[code];
    return `| [\`${code}\`](/docs/errors/${code}) | ${def.status} | ${def.when} | ${def.action} |`;
  });
  return ['| Code (`title`) | Status | When | What to do |', '|---|---|---|---|', ...rows].join('\n');
}

function errorBody(code: ErrorCode): string {
  const def = ERROR_CATALOGUE[code];
  return `<h1><code>${code}</code></h1>
<p><strong>HTTP status:</strong> ${def.status}</p>
<p><strong>When:</strong> ${escapeHtml(def.when)}</p>
<p><strong>What to do:</strong> ${escapeHtml(def.action)}</p>
<p>All codes: <a href="/docs/errors">the errors guide</a>.</p>`;
}

function layout(title: string, nav: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Client Public API</title>
<style>
body{font:16px/1.55 system-ui,sans-serif;margin:0;display:flex;color:#1b1f24}
nav{width:15rem;padding:1.5rem;background:#f4f6f8;min-height:100vh;box-sizing:border-box}
nav a{display:block;margin:.3rem 0;color:#0b5cad;text-decoration:none}
main{padding:1.5rem 2.5rem;max-width:52rem}
pre{background:#f4f6f8;padding:1rem;overflow:auto}code{font-family:ui-monospace,monospace}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left}
</style></head>
<body><nav><a href="/docs/"><strong>Guides</strong></a>${nav}<hr><a href="/reference">API reference</a><a href="/swagger">Swagger UI</a></nav>
<main>${body}</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
