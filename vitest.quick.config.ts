// `npm run test:quick`: the inner loop. The whole suite minus the files that need what is slow to
// start or heavy to run: a PostgreSQL cluster, Chromium, the packed tarball (tarball test, docs
// examples), the MCP conformance suite, the crash/kill tests that SIGKILL real processes, and tsc. Under CI
// and before a merge `npm test` stays the whole suite; this config never decides what CI runs.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// What makes a file heavy is what it imports or does, read from the file itself, so a new PostgreSQL
// or browser test is left out of the quick run without anyone updating a list here.
const heavyMarks: RegExp[] = [
  /support\/postgres(-cluster)?\.js'/, // PostgreSQL
  /support\/chromium\.js'/, // Chromium
  /support\/packed\.js'/, // the packed tarball
  /tools\/mcp-conformance/, // the MCP conformance suite
  /SIGKILL/, // kills a real process
  /getPreEmitDiagnostics/, // type-checks a program with tsc, as `npm run typecheck` does the same files
];

export const heavyFiles: string[] = readdirSync('tests', { recursive: true, encoding: 'utf8' })
  .filter((path) => /\.test\.tsx?$/.test(path))
  .map((path) => join('tests', path))
  .filter((file) => {
    if (/crash/.test(file)) return true;
    const source = readFileSync(file, 'utf8');
    return heavyMarks.some((mark) => mark.test(source));
  });

// The quick run starts no PostgreSQL cluster and packs no tarball; it does bundle the command its CLI
// tests run. It runs no tsc either (tests/types, the tsc-program tests): `npm run typecheck` checks
// those files, tsconfig.json includes tests/.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    globalSetup: ['tests/support/cli-setup.ts'],
    exclude: [...configDefaults.exclude, ...heavyFiles],
    typecheck: { ...base.test?.typecheck, enabled: false },
  },
});
