/**
 * The checkout's root (the folder with package.json), whether this code runs from its TypeScript sources or compiled
 * into dist/: files that are not compiled (docs/*.md, migrations' recorded names) are found from here.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PROJECT_ROOT = findRoot(__dirname);

/** True when this module was loaded from dist/ (compiled JavaScript) rather than through tsx. */
export const RUNNING_COMPILED = __filename.endsWith('.js');
