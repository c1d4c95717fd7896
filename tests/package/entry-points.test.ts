import { execFile } from 'node:child_process';
import { access, copyFile, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');

// The runtime values CONTRACT.md promises per entry point (types are checked by tsc, not here).
const CONTRACT: Record<string, string[]> = {
  'indusagi/runtime': ['createAgent', 'RunLedger', 'SnapshotAccumulator', 'SessionStore', 'SessionGraph', 'hashNode', 'estimateContextTokens', 'shouldCompact', 'findCutPoint', 'summarize', 'compact'],
  'indusagi/memory': ['createMemoryStore', 'recallMemory', 'rememberFacts', 'formatMemoryBlock'],
  'indusagi/anthropic': ['runAgent'],
  indusagi: ['createContextManager', 'memorySource', 'lazyToolSource', 'lazyToolset', 'ToolError', 'toToolset', 'mergeToolsets', 'createAgent', 'SessionStore', 'hashNode', 'compact'],
  'indusagi/react': ['useAssistant'],
  'indusagi/memory/sqlite': ['openSqliteMemoryStore'],
  'indusagi/chat': ['createAssistantStore', 'readParts'],
  'indusagi/openai': ['createOpenAIInvoker'],
};

// Built the way `npm run build` builds, into a scratch copy of the package so the exports map is
// resolved for real (package self-reference) without touching the working tree's dist/.
let pkg: string;

beforeAll(async () => {
  pkg = await mkdtemp(join(tmpdir(), 'indusagi-pkg-'));
  await copyFile(join(repo, 'package.json'), join(pkg, 'package.json'));
  await symlink(join(repo, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(repo, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')], { cwd: repo });
}, 180_000);

afterAll(async () => {
  if (pkg) await rm(pkg, { recursive: true, force: true });
});

describe('the built package', () => {
  it('exposes every entry point of the exports map with the values the contract names', async () => {
    const script = `
      const want = ${JSON.stringify(CONTRACT)};
      const missing = [];
      for (const [entry, names] of Object.entries(want)) {
        const mod = await import(entry);
        for (const name of names) if (mod[name] === undefined) missing.push(entry + ' ' + name);
      }
      console.log(JSON.stringify(missing));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: pkg });
    expect(JSON.parse(stdout)).toEqual([]);
  });

  it('ships type declarations for every entry point', async () => {
    const { stdout } = await run(process.execPath, ['-e', 'console.log(JSON.stringify(require("./package.json").exports))'], { cwd: pkg });
    const exportsMap = JSON.parse(stdout) as Record<string, { types?: string; import?: string } | string>;
    for (const [entry, target] of Object.entries(exportsMap)) {
      if (typeof target === 'string') continue;
      await expect(access(join(pkg, target.types!)), `${entry} types`).resolves.toBeUndefined();
      await expect(access(join(pkg, target.import!)), `${entry} import`).resolves.toBeUndefined();
    }
  });

  it('runs the indusagi command from its bin', async () => {
    const bin = (JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.indusagi;
    const { stdout } = await run(process.execPath, [join(pkg, bin), '--version'], { cwd: pkg });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
