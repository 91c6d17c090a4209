/**
 * The layering rules of eslint.config.mjs (ARCHITECTURE.md, "what may import what") must keep reporting what they
 * forbid: each import below is linted as a snippet placed in the folder it concerns, with the repository's config.
 * A regex in the config that silently stops matching fails here instead of letting a violation through.
 *
 * No import cycles either, type imports included: dependency-cruiser reads the product folders' import graph (a
 * couple of seconds; eslint-plugin-import-x's no-cycle skips type imports and would re-parse every file in lint).
 * A fixture with a cycle checks that the check still sees one.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = path.resolve(__dirname, '..', '..');

interface Case {
  /** Where the snippet is placed (need not exist). */
  file: string;
  forbidden: string[];
  allowed: string[];
}

const CASES: Case[] = [
  {
    file: 'workflows/layering-probe.ts',
    forbidden: [
      "import fs from 'node:fs';",
      "import { randomUUID } from 'crypto';",
      "import { Context } from '@temporalio/activity';",
      "import { createWebhookDeliveryActivities } from '../activities/webhook-delivery';",
      "import { createDb } from '../core/platform/db';",
      "import type { Db } from '../core/platform/db';",
      "import { createApp } from '../api/app';",
    ],
    allowed: [
      "import { sleep } from '@temporalio/workflow';",
      "import type { WebhookDeliveryActivities } from '../activities/webhook-delivery';",
      "import { SEARCH_ATTRIBUTE_KEYS } from '../core/temporal/names';",
      "import { diagnosticProbeWorkflow } from './diagnostics';",
    ],
  },
  {
    file: 'workflows/bundles/layering-probe.ts',
    forbidden: [
      "export { createDb } from '../../core/platform/db';",
      "export { createDiagnosticsActivities } from '../../activities/diagnostics';",
    ],
    allowed: [
      "export { diagnosticProbeWorkflow } from '../diagnostics';",
      "export { TASK_QUEUES } from '../../core/temporal/names';",
    ],
  },
  {
    file: 'core/debts/layering-probe.ts',
    forbidden: [
      "import { createApp } from '../../api/app';",
      "import { runWorker } from '../../workers/lifecycle';",
      "import type { DiagnosticsActivities } from '../../activities/diagnostics';",
      "import { diagnosticProbeWorkflow } from '../../workflows/diagnostics';",
    ],
    allowed: ["import { createDb } from '../platform/db';", "import { Worker } from '@temporalio/worker';"],
  },
  {
    file: 'core/temporal/names.ts',
    forbidden: [
      "import { MODES } from '../platform/mode';",
      "import { createDb } from '../platform/db';",
      "import { sleep } from '@temporalio/workflow';",
    ],
    allowed: [
      "import type { Mode } from '../platform/mode';",
      "import { defineSearchAttributeKey } from '@temporalio/common';",
    ],
  },
  {
    file: 'api/routes/layering-probe.ts',
    forbidden: ["import { runWorker } from '../../workers/webhooks';"],
    allowed: ["import { createDb } from '../../core/platform/db';"],
  },
];

describe('layering lint rules (eslint.config.mjs)', function () {
  this.timeout(60_000);
  // The repository's config, without type-aware rules: the snippets are not files of the TypeScript project.
  const eslint = new ESLint({ cwd: ROOT, overrideConfig: [tseslint.configs.disableTypeChecked] });

  async function restrictedImports(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${code}\n`, { filePath: path.join(ROOT, file) });
    const messages = result?.messages ?? [];
    const fatal = messages.filter((m) => m.fatal);
    if (fatal.length > 0) throw new Error(`${file}: ${fatal.map((m) => m.message).join('; ')}`);
    return messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  }

  for (const { file, forbidden, allowed } of CASES) {
    it(`reports each forbidden import in ${file}, and none of the allowed ones`, async function () {
      for (const code of forbidden) {
        expect(await restrictedImports(file, code), `${file}: ${code}`).to.have.length.greaterThan(0);
      }
      for (const code of allowed) expect(await restrictedImports(file, code), `${file}: ${code}`).to.deep.equal([]);
    });
  }
});

/** The product folders: everything but test/, docs/ and the generated SDK. */
const PRODUCT_FOLDERS = ['api', 'core', 'web', 'workers', 'activities', 'workflows', 'scripts', 'migrations'];

/** Each import cycle among the files under `folders`, once, as `a.ts -> b.ts -> a.ts`. */
async function importCycles(folders: string[]): Promise<string[]> {
  // An ES module only (with top-level await): loaded by import(), not require().
  const { cruise } = await import('dependency-cruiser');
  const result = await cruise(
    folders,
    {
      baseDir: ROOT,
      tsPreCompilationDeps: true, // type-only imports are edges too
      doNotFollow: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden: [{ name: 'no-cycle', severity: 'error', from: {}, to: { circular: true } }] },
    },
    { extensions: ['.ts', '.tsx', '.js'] },
    { tsConfig: { fileName: path.join(ROOT, 'tsconfig.json') } },
  );
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a result');
  const cycles = new Map<string, string>();
  for (const violation of result.output.summary.violations) {
    const members = (violation.cycle ?? []).map((step) => step.name);
    const key = [...members].sort().join(' ');
    if (!cycles.has(key)) cycles.set(key, [violation.from, ...members].join(' -> '));
  }
  return [...cycles.values()];
}

describe('import cycles', function () {
  this.timeout(60_000);

  it('product code has none, type imports included', async function () {
    expect(await importCycles(PRODUCT_FOLDERS)).to.deep.equal([]);
  });

  it('are reported (a fixture with a cycle closed by a type import)', async function () {
    expect(await importCycles(['test/unit/fixtures/import-cycle'])).to.deep.equal([
      'test/unit/fixtures/import-cycle/ledger.ts -> test/unit/fixtures/import-cycle/teller.ts -> test/unit/fixtures/import-cycle/ledger.ts',
    ]);
  });
});
