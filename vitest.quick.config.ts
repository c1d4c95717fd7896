// `npm run test:quick`: the inner loop. The whole suite minus the files that need what is slow to
// start or heavy to run: a PostgreSQL cluster, Chromium, the packed tarball (tarball test, docs
// examples), the MCP conformance suite, and the crash/kill tests that SIGKILL real processes. Under CI
// and before a merge `npm test` stays the whole suite; this config never decides what CI runs.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

// What makes a file heavy is what it imports or does, read from the file itself, so a new PostgreSQL
// or browser test is left out of the quick run without anyone updating a list here.
const heavyMarks: [RegExp, string][] = [
  [/support\/postgres(-cluster)?\.js'/, 'PostgreSQL'],
  [/support\/chromium\.js'/, 'Chromium'],
  [/support\/packed\.js'/, 'the packed tarball'],
  [/conformance/i, 'the MCP conformance suite'],
  [/SIGKILL/, 'kills a real process'],
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

export const heavyFiles: string[] = testFiles('tests').filter((file) => {
  const source = readFileSync(file, 'utf8');
  return /crash/.test(file) || heavyMarks.some(([mark]) => mark.test(source));
});

export default mergeConfig(
  { ...base, test: { ...base.test, globalSetup: [] } },
  defineConfig({ test: { exclude: ['**/node_modules/**', ...heavyFiles] } }),
);
