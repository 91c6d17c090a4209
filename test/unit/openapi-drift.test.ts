import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generatedOpenApiJson } from '../../scripts/openapi-document';

describe('docs/openapi.json', () => {
  it('is exactly what the code generates (run `npm run openapi:write` after changing a route)', () => {
    const committed = readFileSync(path.resolve(__dirname, '..', '..', 'docs', 'openapi.json'), 'utf8');
    expect(committed === generatedOpenApiJson(), 'docs/openapi.json is out of date: npm run openapi:write').to.equal(
      true,
    );
  });
});
