// Bundles a TypeScript fixture into one ES module file, so a child process starts in tens of
// milliseconds instead of compiling TypeScript on start.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export async function bundleFixture(fixture: string, dir: string): Promise<string> {
  const outfile = join(dir, fixture.replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url))],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
    // The bundle runs from a temporary folder; CommonJS dependencies inside it still need `require`.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return outfile;
}
