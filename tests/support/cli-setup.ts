// vitest globalSetup: the `indusagi` command bundled once per run, so each of the hundreds of commands the
// CLI tests start loads one JavaScript file instead of compiling src/ through tsx on start (about a
// third of the CPU time a command took: 0.6 s instead of 2 s for `-p "list files in src"`).
//
// Only src/ is bundled; the packages stay imports, resolved from a `node_modules` link beside the bundle,
// so every dependency loads from its own files as it does for the command run from source. The bundle
// (its chunks beside it) sits at `src/cli/main.mjs` under a folder whose `package.json` is the repo's,
// so the command's `new URL('../../package.json', import.meta.url)` (its --version) reads the same file.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled command's entry file (`node <it> ARGS` runs `indusagi ARGS`). */
    cliBundle: string;
  }
}

const repo = resolve(import.meta.dirname, '../..');

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'indusagi-cli-bundle-'));
  symlinkSync(join(repo, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // Split at every dynamic import, so what the command loads lazily stays lazy: one file would hoist a
  // lazy module's package imports to its top (tests/cli/sdk-load.test.ts saw the Anthropic SDK load at start).
  await build({
    entryPoints: [join(repo, 'src/cli/main.ts')],
    outdir: join(dir, 'src/cli'),
    splitting: true,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  project.provide('cliBundle', join(dir, 'src/cli/main.mjs'));
  return () => rmSync(dir, { recursive: true, force: true });
}
