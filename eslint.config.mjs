// Lint rules that keep Temporal code honest (STYLE.md §7): no floating promises anywhere, workflow code imports only
// what runs in Temporal's deterministic sandbox, and the folders import only what ARCHITECTURE.md allows.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'eslint.config.mjs', 'sdk/src/generated/**', 'sdk/bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  // Layering (ARCHITECTURE.md "Folders and what may import what"), checked by test/unit/layering-lint.test.ts.
  {
    // Workflow code runs in Temporal's deterministic sandbox: the workflow API, activity types and the names module.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/workflow$|\\.)',
              message: 'workflows/ imports only @temporalio/workflow (no Node built-ins, no other package).',
            },
            {
              regex: '(^|/)\\.\\./(?!core/temporal/names$|activities/)[^./][^/]*/',
              message: 'workflows/ imports only activity types and core/temporal/names from outside workflows/.',
            },
            {
              regex: '(^|/)activities/',
              allowTypeImports: true,
              message: 'workflows/ imports activities as types only (`import type`): they run on the worker.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)\\.\\./(\\.\\./)*(api|workers|activities|workflows)(/|$)',
              message: 'core/ never imports api/, workers/, activities/ or workflows/: they are passed in.',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code imports the names module, so it stays as deterministic as a workflow (replaces the core/ rule).
    files: ['core/temporal/names.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@temporalio/common$|\\.\\./platform/mode$)',
              message: 'core/temporal/names.ts imports only @temporalio/common and the Mode type.',
            },
            {
              regex: '^\\.\\./platform/mode$',
              allowTypeImports: true,
              message: 'core/temporal/names.ts imports the Mode type only (`import type`).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)\\.\\./(\\.\\./)*workers(/|$)',
              message: 'api/ never imports workers/: worker processes are wired in workers/ only.',
            },
          ],
        },
      ],
    },
  },
  {
    // Plain CommonJS (the mocha reporter): no type information to lint with.
    files: ['**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The console's and portal's pages call core/ services directly, never the public API (ARCHITECTURE.md).
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/**', '**/workflows/**', '**/activities/**', '**/workers/**'],
              message: 'web/ imports core/ only',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  prettier,
);
