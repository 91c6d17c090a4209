/**
 * The client guides at /docs/: the Markdown files at the top of `docs/` rendered to HTML once, at start-up, grouped
 * into sections; one generated page per error code, so that every problem's `type` URI opens its documentation; and
 * the event catalogue, generated from the event schemas. The operators' guides (`docs/operators/`) stay in the
 * repository and are not served (docs/operators/README.md says why).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Marked, type Tokens } from 'marked';
import { ApiError, ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../../core/platform/errors';
import { anchor, eventCatalogueMarkdown } from './event-catalogue';
import { docsLayout, escapeHtml, type NavSection } from './docs-layout';

export interface DocsSite {
  indexPage(): string;
  guidePage(slug: string): string;
  errorPage(code: string): string;
  /** The file of `docs/images/<folder>/<file>`; `not_found` for any other name. */
  imageFile(folder: string, file: string): string;
}

/** The public base URLs the guides' `{base_url}` and `{sandbox_url}` stand for (DECISIONS.md §1). */
export interface DocsHosts {
  production: string;
  sandbox: string;
}

interface Guide {
  slug: string;
  title: string;
  summary: string;
  markdown: string;
}

/**
 * The index's sections, in reading order, with each guide's line on the index; a guide not listed here goes under
 * "More guides", alphabetically, with the first sentence of its first paragraph.
 */
const SECTIONS: { title: string; guides: Record<string, string> }[] = [
  {
    title: 'Start here',
    guides: {
      'getting-started': 'From a sandbox key to a debt, its events and a webhook, in about ten minutes.',
      authentication: 'API keys, where they come from, scopes, read-only keys and the order of checks.',
      sandbox: 'Sign up, explore the seeded data, and play the debtor and the payment processor.',
      sdk: 'The typed TypeScript client, webhook verification, and `listen` for events on your machine.',
    },
  },
  {
    title: 'Working with the API',
    guides: {
      errors: 'Problem documents, every error code, and which errors to retry.',
      pagination: 'Cursors over every list, newest first.',
      idempotency: 'Retrying a POST or PATCH safely with an `Idempotency-Key`.',
      'rate-limits': 'Hourly and daily windows per key, their headers, and pacing.',
      versioning: 'How an operation is deprecated and for how long it keeps working.',
      'product-choices': 'Behaviour the specification leaves open, and what we chose.',
    },
  },
  {
    title: 'Debts',
    guides: {
      debts: 'Raising and amending debts, debtors, transactions and payments, and the portal’s branding.',
      lifecycle: 'The states of a debt, what moves it, instalment plans and defaults.',
      placements: 'Many debts from one CSV or JSON Lines file: its columns, the template, the row errors.',
      documents: 'Attaching proof of a debt, and reading it back.',
      payments: 'How debtors pay: the test cards, Stripe, and how a payment’s outcome reaches the debt.',
      portal: 'The debtor portal: how debtors get in, what they can do there, and the plan rules you set.',
      notifications: 'The emails debtors get and when, the opt-out, and what the sandbox records instead.',
    },
  },
  {
    title: 'Events and webhooks',
    guides: {
      webhooks: 'Your receiver, signatures, retries, the delivery log and recovering missed events.',
      events: 'Every event type, when it is sent, and an example payload.',
    },
  },
  { title: 'Your team', guides: { console: 'The client console: signing in, API keys, and who may do what.' } },
];

/** Codes whose pages also say where keys come from (the authentication guide's section of that name). */
const KEY_CODES: ErrorCode[] = ['unauthenticated', 'forbidden', 'read_only_key'];
const KEYS_SECTION = 'Where keys come from';

export function loadDocsSite(docsDir: string, hosts: DocsHosts): DocsSite {
  const markdown = createMarkdown();
  const guides = readGuides(docsDir, hosts);
  const bySlug = new Map(guides.map((g) => [g.slug, g]));
  const nav = navSections(guides);
  const pages = new Map(guides.map((g) => [g.slug, docsLayout(g.title, nav, markdown(g.markdown), g.slug)]));
  const keysSection = sectionOf(bySlug.get('authentication')?.markdown ?? '', KEYS_SECTION);
  const errorPages = new Map(
    ERROR_CODES.map((code) => {
      const keys = KEY_CODES.includes(code) && keysSection ? markdown(keysSection) : '';
      return [code, docsLayout(code, nav, errorBody(code, markdown.inline) + keys)];
    }),
  );
  const index = docsLayout('Guides', nav, indexBody(nav, markdown.inline));
  const images = readImages(path.join(docsDir, 'images'));
  return {
    indexPage: () => index,
    guidePage: (slug) => {
      const page = pages.get(slug);
      if (!page) throw new ApiError('not_found', `No guide named ${slug}.`);
      return page;
    },
    errorPage: (code) => {
      const page = errorPages.get(code as ErrorCode);
      if (!page) throw new ApiError('not_found', `No error code named ${code}.`);
      return page;
    },
    imageFile: (folder, file) => {
      const found = images.get(`${folder}/${file}`);
      if (!found) throw new ApiError('not_found', `No image named ${folder}/${file}.`);
      return found;
    },
  };
}

/**
 * Markdown to HTML: headings get ids (so `#where-keys-come-from` links work), and a ```mermaid fence becomes
 * `<pre class="mermaid">` with its source as text, which the page's Mermaid script draws (docs-layout.ts); with
 * JavaScript off the source is what the reader sees.
 */
function createMarkdown(): Markdown {
  const marked = new Marked({
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Heading) {
        return `<h${token.depth} id="${anchor(token.text)}">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
      code(token: Tokens.Code) {
        if (token.lang !== 'mermaid') return false;
        return `<pre class="mermaid">${escapeHtml(token.text)}</pre>\n`;
      },
    },
  });
  return Object.assign((text: string) => marked.parse(text, { async: false }), {
    inline: (text: string) => marked.parseInline(text, { async: false }),
  });
}

type Markdown = ((text: string) => string) & { inline: (text: string) => string };

function readGuides(docsDir: string, hosts: DocsHosts): Guide[] {
  return readdirSync(docsDir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => {
      const slug = f.slice(0, -3);
      const markdown = expandGeneratedSections(readFileSync(path.join(docsDir, f), 'utf8'))
        .replaceAll('{base_url}', hosts.production)
        .replaceAll('{sandbox_url}', hosts.sandbox);
      // Titles are plain text: the nav, the index and <title> show no Markdown.
      const title = (/^#\s+(.+)$/m.exec(markdown)?.[1] ?? slug).replace(/`/g, '');
      return { slug, title, summary: firstSentence(markdown), markdown };
    });
}

function readImages(imagesDir: string): Map<string, string> {
  const images = new Map<string, string>();
  let folders: string[] = [];
  try {
    folders = readdirSync(imagesDir);
  } catch {
    return images;
  }
  for (const folder of folders) {
    for (const file of readdirSync(path.join(imagesDir, folder)).filter((f) => f.endsWith('.png'))) {
      images.set(`${folder}/${file}`, path.join(imagesDir, folder, file));
    }
  }
  return images;
}

function navSections(guides: Guide[]): NavSection[] {
  const bySlug = new Map(guides.map((g) => [g.slug, g]));
  const listed = new Set(SECTIONS.flatMap((s) => Object.keys(s.guides)));
  const entry = (guide: Guide, summary: string) => ({ slug: guide.slug, title: guide.title, summary });
  const sections = SECTIONS.map((section) => ({
    title: section.title,
    guides: Object.entries(section.guides).flatMap(([slug, summary]) => {
      const guide = bySlug.get(slug);
      return guide ? [entry(guide, summary)] : [];
    }),
  }));
  const others = guides
    .filter((g) => !listed.has(g.slug))
    .sort((a, b) => a.slug.localeCompare(b.slug))
    .map((g) => entry(g, g.summary));
  return [...sections, { title: 'More guides', guides: others }].filter((s) => s.guides.length > 0);
}

function indexBody(nav: NavSection[], inline: (text: string) => string): string {
  const sections = nav.map(
    (section) =>
      `<h2>${escapeHtml(section.title)}</h2><dl>${section.guides
        .map((g) => `<dt><a href="/docs/${g.slug}">${escapeHtml(g.title)}</a></dt><dd>${inline(g.summary)}</dd>`)
        .join('')}</dl>`,
  );
  return `<h1>Client Public API guides</h1>
<p>Everything you need to integrate: start with <a href="/docs/getting-started">getting started</a>, which takes you
from a sandbox key to a debt and its webhooks in about ten minutes.</p>
${sections.join('\n')}
<h2>Reference</h2>
<p><a href="/reference">Interactive API reference</a> · <a href="/swagger">Swagger UI</a> ·
<a href="/openapi/v1.json">OpenAPI document</a> (with a <code>webhooks</code> section for every event type)</p>
<p class="aside">Running this service yourself? The operators' guides (architecture, configuration, operations,
performance, scaling, tooling) are in its repository, under <code>docs/operators/</code>.</p>`;
}

/** The first sentence of a guide's first paragraph, as plain text: its line on the index. */
function firstSentence(markdown: string): string {
  const paragraph = markdown
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .find((p) => p !== '' && !/^(#|```|\||<|!\[|- |\d+\. )/.test(p));
  const text = (paragraph ?? '')
    .replace(/\s+/g, ' ')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '');
  const end = text.search(/[.:](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1).replace(/:$/, '.');
}

/** The text of a `## <title>` section, up to the next heading of its level or above, with its heading. */
function sectionOf(markdown: string, title: string): string | undefined {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start === -1) return undefined;
  const rest = markdown.slice(start + 1);
  const end = rest.slice(3).search(/\n#{1,2} /);
  return end === -1 ? rest : rest.slice(0, end + 3);
}

/**
 * Generated sections, built from the sources that also drive the API, so a guide cannot drift from the behaviour:
 * `<!-- generated:error-codes -->` becomes the table of every error code (the error catalogue), and
 * `<!-- generated:event-catalogue -->` every event type with an example payload (the event schemas).
 */
export function expandGeneratedSections(markdown: string): string {
  return markdown
    .replace('<!-- generated:error-codes -->', () => errorCodesTable())
    .replace('<!-- generated:event-catalogue -->', () => eventCatalogueMarkdown());
}

function errorCodesTable(): string {
  const rows = ERROR_CODES.map((code) => {
    const def = ERROR_CATALOGUE[code];
    return `| [\`${code}\`](/docs/errors/${code}) | ${def.status} | ${def.when} | ${def.action} |`;
  });
  return ['| Code (`title`) | Status | When | What to do |', '|---|---|---|---|', ...rows].join('\n');
}

/** `inline` renders the catalogue's texts, which are Markdown (`code` spans) as in the errors guide's table. */
function errorBody(code: ErrorCode, inline: (text: string) => string): string {
  const def = ERROR_CATALOGUE[code];
  return `<h1><code>${code}</code></h1>
<p><strong>HTTP status:</strong> ${def.status}</p>
<p><strong>When:</strong> ${inline(def.when)}</p>
<p><strong>What to do:</strong> ${inline(def.action)}</p>
<p>All codes: <a href="/docs/errors">the errors guide</a>.</p>`;
}
