/**
 * Writes the OpenAPI document that the code generates to docs/openapi.json (default configuration), so the API
 * surface is reviewable in diffs and usable by client generators without running the server. A test fails when the
 * committed file and the code disagree: run `npm run openapi:write` after changing a route.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { generatedOpenApiJson } from './openapi-document';

const target = path.resolve(__dirname, '..', 'docs', 'openapi.json');
writeFileSync(target, generatedOpenApiJson());
console.log(`wrote ${path.relative(process.cwd(), target)}`);
