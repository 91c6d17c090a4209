import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '..', '..');

describe('sdk/src/generated/openapi.ts', () => {
  it('is what openapi-typescript generates from docs/openapi.json (run `npm run openapi:write`)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sdk-types-'));
    try {
      const out = path.join(dir, 'openapi.ts');
      const generator = path.join(ROOT, 'node_modules', '.bin', 'openapi-typescript');
      await promisify(execFile)(generator, ['docs/openapi.json', '-o', out, '--root-types=false'], { cwd: ROOT });
      const committed = await readFile(path.join(ROOT, 'sdk', 'src', 'generated', 'openapi.ts'), 'utf8');
      expect(committed === (await readFile(out, 'utf8')), 'out of date: npm run openapi:write').to.equal(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
