import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Every package a module pulls in at runtime, following its relative imports (type-only imports are erased, so skipped). */
function runtimePackages(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const match of code.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'";]*?from\s+['"]([^'"]+)['"]/gm)) {
      const specifier = match[1];
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  };
  visit(resolve(src, entry));
  return packages;
}

// A page bundles these entries for the browser; one node built-in anywhere in their graph breaks the build.
describe('browser entries', () => {
  it('indusagi/chat needs no package at all at runtime', () => {
    expect([...runtimePackages('chat/index.ts')]).toEqual([]);
  });

  it('indusagi/react needs only react', () => {
    expect([...runtimePackages('react/index.ts')]).toEqual(['react']);
  });

  it('the graph walk does see a built-in two imports deep, and ignores type-only imports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'indusagi-graph-'));
    writeFileSync(join(dir, 'entry.ts'), "import type { Server } from 'node:http';\nexport {\n  helper,\n} from './helper.js';\n");
    writeFileSync(join(dir, 'helper.ts'), "import { randomUUID } from 'node:crypto';\nexport const helper = randomUUID;\n");
    expect([...runtimePackages(join(dir, 'entry.ts'))]).toEqual(['node:crypto']);
  });
});
