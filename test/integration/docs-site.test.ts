/**
 * The client guides at /docs/: client guides only, in sections, every link resolving; no
 * "for maintainers" parts; Mermaid served from this host; the event catalogue generated from the schemas; and the
 * pages about keys say where keys come from.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { EVENT_TYPES } from '../../core/events/outbox';
import { eventSchemaName } from '../../api/schemas/event-data';
import { documentSchemas } from '../support/openapi-schemas';
import { startTestServer, type TestServer } from '../support/app';

const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const OPERATOR_GUIDES = readdirSync(path.join(DOCS, 'operators'))
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .map((f) => f.slice(0, -3));

/** The text of an HTML fragment's entities, as a browser reads it. */
function decode(html: string): string {
  return html
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&');
}

describe('The client guides at /docs/', function () {
  this.timeout(60_000);
  let server: TestServer;
  const pages = new Map<string, string>();
  const get = async (url: string) => {
    const res = await fetch(`${server.baseUrl}${url}`);
    return { res, body: res.headers.get('content-type')?.startsWith('text/html') ? await res.text() : '' };
  };
  before(async () => {
    server = await startTestServer({ mode: 'sandbox' });
  });
  after(async () => {
    await server.close();
  });

  it('lists the client guides in sections, and serves no operators’ guide', async () => {
    const { res, body } = await get('/docs/');
    expect(res.status).to.equal(200);
    for (const section of ['Start here', 'Working with the API', 'Debts', 'Events and webhooks'])
      expect(body).to.contain(`<h2>${section}</h2>`);
    const clientGuides = readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3));
    for (const slug of clientGuides) expect(body, slug).to.contain(`href="/docs/${slug}"`);
    expect(OPERATOR_GUIDES).to.include.members(['architecture', 'operations', 'performance', 'scaling', 'tooling']);
    for (const slug of OPERATOR_GUIDES) {
      expect(body).not.to.contain(`href="/docs/${slug}"`);
      expect((await get(`/docs/${slug}`)).res.status, slug).to.equal(404);
    }
  });

  it('has no part for maintainers or operators in a client guide', () => {
    for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
      const headings = readFileSync(path.join(DOCS, file), 'utf8').match(/^#+ .*$/gm) ?? [];
      for (const heading of headings) expect(heading, file).not.to.match(/maintainer|operator|how it is built/i);
    }
  });

  it('resolves every link of every page: guides, error pages, anchors and images', async () => {
    const queue = ['/docs/'];
    const seen = new Set<string>();
    const anchors: { from: string; to: string; id: string }[] = [];
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const { res, body } = await get(url);
      expect(res.status, url).to.equal(200);
      if (!body) continue;
      pages.set(url, body);
      for (const [, target] of body.matchAll(/(?:href|src)="([^"]+)"/g)) {
        if (/^(https?|data):/.test(target!)) continue; // examples of other hosts in the prose, the empty icon
        const [rawPath, id] = target!.split('#') as [string, string | undefined];
        const resolved = rawPath === '' ? url : new URL(rawPath, `http://host${url}`).pathname;
        if (id) anchors.push({ from: url, to: resolved, id });
        if (resolved.startsWith('/docs/') || resolved === '/docs/') queue.push(resolved);
        else if (!seen.has(resolved)) {
          seen.add(resolved);
          expect((await fetch(`${server.baseUrl}${resolved}`)).status, `${url} → ${resolved}`).to.equal(200);
        }
      }
    }
    expect(seen.size).to.be.greaterThan(40);
    for (const { from, to, id } of anchors) {
      expect(pages.get(to), `${from} → ${to}#${id}`).to.contain(`id="${id}"`);
    }
    for (const [url, body] of pages) {
      expect(body, url).not.to.match(/\{(base_url|sandbox_url)\}/);
    }
  });

  it('lists every event type in the catalogue with an example that validates against its schema', async () => {
    const doc = (await (await fetch(`${server.baseUrl}/openapi/v1.json`)).json()) as {
      webhooks: Record<string, unknown>;
    };
    const schemas = documentSchemas(doc);
    const { body } = await get('/docs/events');
    expect(Object.keys(doc.webhooks).sort()).to.deep.equal([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const at = body.indexOf(`id="${type.replace('.', '-')}"`);
      expect(at, type).to.be.greaterThan(-1);
      const code = /<code class="language-json">([\s\S]*?)<\/code>/.exec(body.slice(at));
      const example = JSON.parse(decode(code![1]!)) as { type: string; id: string; data: Record<string, unknown> };
      expect(example.type).to.equal(type);
      expect(example.id).to.match(/^evt_/);
      const schema = { $ref: `#/components/schemas/${eventSchemaName(type)}Event` };
      expect(schemas.validate(schema, example), `${type}: ${schemas.errorsText()}`).to.equal(true);
    }
  });

  it('serves the Mermaid bundle from this host with a year’s cache, only to pages with a diagram', async () => {
    const { body } = await get('/docs/lifecycle');
    expect(body).to.contain('<pre class="mermaid">stateDiagram-v2');
    // With JavaScript off the source reads as text: its arrows are escaped, not markup.
    expect(body).to.contain('[*] --&#62; PendingAssignment');
    const script = /<script src="(\/docs\/assets\/mermaid-[\d.]+\.min\.js)"><\/script>/.exec(body)?.[1];
    expect(script).to.be.a('string');
    const res = await fetch(`${server.baseUrl}${script}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect((await res.text()).length).to.be.greaterThan(1_000_000);
    expect((await get('/docs/errors')).body).not.to.contain('/docs/assets/mermaid');
    expect((await fetch(`${server.baseUrl}/docs/assets/mermaid.min.js`)).status).to.equal(404);
  });

  it('says where keys come from in the authentication guide and on the pages of the key errors', async () => {
    for (const page of ['/docs/authentication', '/docs/errors/forbidden', '/docs/errors/unauthenticated']) {
      const { body } = await get(page);
      expect(body, page).to.contain('id="where-keys-come-from"');
      expect(body, page).to.contain(`POST ${server.config.sandboxBaseUrl}/sandbox/signup`);
      expect(body, page).to.contain('/console</code>');
      expect(body, page).not.to.contain('npm run cli');
    }
  });
});
