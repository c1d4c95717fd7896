// `npm run lint` (part of `npm test`). A small set of rules, each for a bug class this code base has had
// or can have, rather than a style guide (Prettier owns the layout):
// - the typed union rules: a union member written twice (RunEvent's `tool_progress` was) or swallowed by a
//   wider one (`'ok' | string`, `unknown | X`) is a type that says less than its author meant;
// - promises: one nobody awaits loses its rejection (and a test's `expect(...).rejects` its assertion);
// - unused names, where `_` marks one left out on purpose;
// - `indusagi/index-face`: an import from another src/ folder goes through its index.ts (see the rule).
import tseslint from 'typescript-eslint';
import indusagi from './tools/eslint/index-face.mjs';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'tools/mcp-conformance/**',
      'tests/package/consumer/**',
      '**/*.d.ts',
      '.doc-examples/**',
      '.bench-dist/**',
    ],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: {
      parser: tseslint.parser,
      // The type-aware rules read the same program tsc checks (tsconfig.json).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, indusagi },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-duplicate-type-constituents': 'error',
      '@typescript-eslint/no-redundant-type-constituents': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      // A promise where a truth value or a spread is expected. Passing an async callback where a void one
      // is expected is left out: every listener here handles its own failure.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
      'no-dupe-keys': 'error',
      'no-self-compare': 'error',
      'no-unreachable': 'error',
      'no-cond-assign': 'error',
      'no-debugger': 'error',
      'indusagi/index-face': 'error',
    },
  },
);
