/**
 * Discovery surface: the OpenAPI document, Swagger UI (/swagger), the Scalar reference (/reference) and the
 * guides (/docs/). The UIs are served from their npm packages on this host: no CDN, no telemetry.
 */
import { PLACEMENT_FILES, type PlacementFileName } from '../../core/placements/placement-files';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../core/platform/errors';
import { defineRoute, type RouteDefinition } from '../http/route-definition';
import type { DocsSite } from '../discovery/docs-site';
import { MERMAID_ASSET } from '../discovery/docs-layout';
import type { ServerEntry } from '../discovery/openapi-document';
import { referencePage } from '../discovery/reference-page';

// Resolve the package's folder without `require('swagger-ui-dist')`, which would load its 1.5 MB bundle into the API.
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// The package exports no subpath for its browser bundle; its main entry sits in dist/, beside browser/.
const SCALAR_BUNDLE = path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');

const HTML = 'text/html; charset=utf-8';
const LINKS = { openapi: '/openapi/v1.json', reference: '/reference', swagger: '/swagger', docs: '/docs/' };
const htmlResponse = { description: 'HTML page.', schema: { type: 'string' }, contentType: 'text/html' };

export function discoveryRoutes(options: {
  openApiJson: () => string;
  docs: DocsSite;
  mode: string;
  /** Both hosts, this one first (`hostServers`). */
  servers: ServerEntry[];
}): RouteDefinition[] {
  const { docs } = options;
  const reference = referencePage(options.servers);
  const index = { name: 'Debt Recovery Client Public API', version: '1.0.0', mode: options.mode, ...LINKS };
  return [
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'getApiIndex',
      summary: 'Where to start: links to the reference, the guides and the OpenAPI document',
      tags: ['Discovery'],
      auth: { kind: 'none' },
      responses: {
        200: {
          description: 'Links.',
          schema: {
            type: 'object',
            required: ['name', 'version', 'mode', 'openapi', 'reference', 'swagger', 'docs'],
            properties: Object.fromEntries(
              ['name', 'version', 'mode', ...Object.keys(LINKS)].map((k) => [k, { type: 'string' }]),
            ),
          },
          example: { ...index, mode: 'production' },
        },
      },
      handler: async () => ({ status: 200, body: index }),
    }),
    defineRoute({
      method: 'get',
      path: '/openapi/v1.json',
      operationId: 'getOpenApiDocument',
      summary: 'This API’s OpenAPI 3.1.1 description',
      tags: ['Discovery'],
      auth: { kind: 'none' },
      responses: { 200: { description: 'The OpenAPI document.', schema: { type: 'object' } } },
      handler: async () => ({
        status: 200,
        body: options.openApiJson(),
        contentType: 'application/json; charset=utf-8',
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/swagger',
      operationId: 'getSwaggerUi',
      summary: 'Swagger UI over the OpenAPI document',
      tags: ['Discovery'],
      auth: { kind: 'none' },
      responses: { 200: htmlResponse },
      handler: async () => ({ status: 200, body: swaggerPage(), contentType: HTML }),
    }),
    defineRoute({
      method: 'get',
      path: '/swagger/assets/{file}',
      operationId: 'getSwaggerAsset',
      summary: 'Swagger UI static asset',
      tags: ['Discovery'],
      internal: true,
      auth: { kind: 'none' },
      params: { type: 'object', properties: { file: { type: 'string', enum: Object.keys(SWAGGER_ASSETS) } } },
      responses: { 200: { description: 'Asset.' } },
      handler: async (_ctx, { params }) => ({
        status: 200,
        body: createReadStream(path.join(SWAGGER_DIR, params.file!)),
        contentType: SWAGGER_ASSETS[params.file!],
        headers: { 'Cache-Control': 'public, max-age=86400' },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/reference',
      operationId: 'getApiReference',
      summary: 'Interactive API reference',
      tags: ['Discovery'],
      auth: { kind: 'none' },
      responses: { 200: htmlResponse },
      handler: async () => ({ status: 200, body: reference, contentType: HTML }),
    }),
    defineRoute({
      method: 'get',
      path: '/reference/standalone.js',
      operationId: 'getApiReferenceBundle',
      summary: 'Scalar API reference bundle',
      tags: ['Discovery'],
      internal: true,
      auth: { kind: 'none' },
      responses: { 200: { description: 'Script.' } },
      handler: async () => ({
        status: 200,
        body: createReadStream(SCALAR_BUNDLE),
        contentType: 'text/javascript; charset=utf-8',
        headers: { 'Cache-Control': 'public, max-age=86400' },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'redirectToDocs',
      summary: 'Redirect to /docs/',
      tags: ['Discovery'],
      internal: true,
      auth: { kind: 'none' },
      responses: { 301: { description: 'To /docs/.' } },
      handler: async () => ({ status: 301, headers: { Location: '/docs/' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs/',
      operationId: 'getGuidesIndex',
      summary: 'Guides: index',
      tags: ['Discovery'],
      auth: { kind: 'none' },
      responses: { 200: htmlResponse },
      handler: async () => ({ status: 200, body: docs.indexPage(), contentType: HTML }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs/{page}',
      operationId: 'getGuide',
      summary: 'A guide',
      tags: ['Discovery'],
      auth: { kind: 'none' },
      params: { type: 'object', properties: { page: { type: 'string', pattern: '^[a-z0-9-]+$' } } },
      errors: ['not_found'],
      responses: { 200: htmlResponse },
      handler: async (_ctx, { params }) => ({ status: 200, body: docs.guidePage(params.page!), contentType: HTML }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/{file}',
      operationId: 'getDocsAsset',
      summary: 'The guides’ Mermaid bundle (from the npm package; its version in the name, so cached for a year)',
      tags: ['Discovery'],
      internal: true,
      auth: { kind: 'none' },
      params: { type: 'object', properties: { file: { type: 'string', pattern: '^[a-z0-9.-]+$' } } },
      errors: ['not_found'],
      responses: { 200: { description: 'Script.' } },
      handler: async (_ctx, { params }) => {
        if (params.file !== MERMAID_ASSET.file) throw new ApiError('not_found', `No asset named ${params.file}.`);
        return {
          status: 200,
          body: createReadStream(MERMAID_ASSET.path),
          contentType: 'text/javascript; charset=utf-8',
          headers: { 'Cache-Control': 'public, max-age=31536000, immutable' },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/placements/{file}',
      operationId: 'getPlacementFile',
      summary: 'The placement template and example file of /docs/placements (CSV, downloaded)',
      tags: ['Discovery'],
      internal: true,
      auth: { kind: 'none' },
      params: { type: 'object', properties: { file: { type: 'string', enum: Object.keys(PLACEMENT_FILES) } } },
      errors: ['not_found'],
      responses: { 200: { description: 'CSV file.' } },
      handler: async (_ctx, { params }) => ({
        status: 200,
        body: PLACEMENT_FILES[params.file as PlacementFileName],
        contentType: 'text/csv; charset=utf-8',
        headers: {
          'Content-Disposition': `attachment; filename="placement-${params.file!}"`,
          'Cache-Control': 'public, max-age=3600',
        },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs/images/{folder}/{file}',
      operationId: 'getDocsImage',
      summary: 'An image of the guides (docs/images/)',
      tags: ['Discovery'],
      internal: true,
      auth: { kind: 'none' },
      params: {
        type: 'object',
        properties: {
          folder: { type: 'string', pattern: '^[a-z0-9-]+$' },
          file: { type: 'string', pattern: '^[a-z0-9-]+\\.png$' },
        },
      },
      errors: ['not_found'],
      responses: { 200: { description: 'PNG image.' } },
      handler: async (_ctx, { params }) => ({
        status: 200,
        body: createReadStream(docs.imageFile(params.folder!, params.file!)),
        contentType: 'image/png',
        headers: { 'Cache-Control': 'public, max-age=3600' },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs/errors/{code}',
      operationId: 'getErrorCodeDoc',
      summary: 'Documentation of one error code (the target of a problem’s `type`)',
      tags: ['Discovery'],
      auth: { kind: 'none' },
      params: { type: 'object', properties: { code: { type: 'string', pattern: '^[a-z_]+$' } } },
      errors: ['not_found'],
      responses: { 200: htmlResponse },
      handler: async (_ctx, { params }) => ({ status: 200, body: docs.errorPage(params.code!), contentType: HTML }),
    }),
  ];
}

function swaggerPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Client Public API · Swagger UI</title>
<link rel="stylesheet" href="/swagger/assets/swagger-ui.css"><link rel="icon" href="/swagger/assets/favicon-32x32.png"></head>
<body><div id="swagger-ui"></div>
<script src="/swagger/assets/swagger-ui-bundle.js"></script>
<script src="/swagger/assets/swagger-ui-standalone-preset.js"></script>
<script>
window.ui = SwaggerUIBundle({ url: '/openapi/v1.json', dom_id: '#swagger-ui', deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout',
  validatorUrl: null });
</script></body></html>`;
}
