import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectations, extractBlocks, missing } from '../support/doc-examples.js';

// What a user gets from `npm install indusagi`: the repo is packed the way `npm publish` packs it
// (prepack builds), the tarball is installed into a scratch consumer project, and that project
// imports, requires, typechecks against and runs the installed package. Every entry point is read
// from the packed package.json, so entries added or moved are checked without editing this file.

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const fixtures = join(import.meta.dirname, 'consumer');
const tsc = join(repo, 'node_modules/typescript/bin/tsc');

// The runtime values CONTRACT.md promises per entry point, and the headline values of the entries
// added beside it (types are checked by the consumer typecheck).
const CONTRACT: Record<string, string[]> = {
  'indusagi/runtime': [
    'createAgent',
    'RunLedger',
    'SnapshotAccumulator',
    'SessionStore',
    'SessionGraph',
    'hashNode',
    'estimateContextTokens',
    'shouldCompact',
    'findCutPoint',
    'summarize',
    'compact',
  ],
  'indusagi/memory': ['createMemoryStore', 'recallMemory', 'rememberFacts', 'formatMemoryBlock'],
  'indusagi/anthropic': ['runAgent'],
  // The front door: the seeds' names and the starter set (types are checked by the consumer typecheck).
  indusagi: [
    'createContextManager',
    'memorySource',
    'lazyToolSource',
    'lazyToolset',
    'ToolError',
    'toToolset',
    'mergeToolsets',
    'createAgent',
    'tool',
    'Run',
    'RunFault',
    'IndusagiError',
    'SessionStore',
    'MemorySessionStore',
    'agentRunParts',
  ],
  'indusagi/store': ['SessionStore', 'MemorySessionStore', 'SessionGraph', 'SessionWriter', 'hashNode', 'loadSession', 'UnknownNodeError'],
  'indusagi/condensation': [
    'estimateContextTokens',
    'shouldCompact',
    'findCutPoint',
    'summarize',
    'compact',
    'HistoryIndex',
    'historyTools',
  ],
  'indusagi/models': ['registerModelCard', 'modelCard', 'resolveModel', 'fallbackModels', 'estimateCost', 'parsePartialJson'],
  'indusagi/guardrails': ['maxPromptSize', 'denyToolArguments', 'InputGuardrailTripwireTriggered'],
  'indusagi/tools': ['tool', 'toToolset', 'mergeToolsets', 'lazyToolset', 'ToolError', 'SEARCH_TOOLS'],
  'indusagi/context': ['createContextManager', 'memorySource', 'lazyToolSource'],
  'indusagi/parts': ['agentRunParts', 'agentRunEvents', 'assertAgentPart'],
  'indusagi/transport': ['sendParts', 'partsResponse', 'readParts', 'fetchParts'],
  'indusagi/ui-message': ['uiMessageStreamResponse', 'sendUIMessageStream', 'uiMessageChunks', 'readChatRequest', 'uiMessagesFromTurns'],
  'indusagi/schema': ['compileSchema', 'SchemaDefinitionError'],
  'indusagi/errors': ['IndusagiError', 'RunFault', 'SessionLockedError', 'ToolError', 'ChatRequestError'],
  'indusagi/workspace': ['Workspace', 'builtInTools'],
  'indusagi/react': ['useAssistant'],
  'indusagi/memory/sqlite': ['openSqliteMemoryStore'],
  'indusagi/postgres': [
    'PostgresMemoryStore',
    'PostgresSessionStore',
    'migratePostgres',
    'PostgresSchemaBehindError',
    'PostgresUnavailableError',
    'SessionLeaseHeldError',
    'SessionFencedError',
  ],
  'indusagi/chat': ['createAssistantStore', 'readParts', 'itemsFromTurns', 'turnsFromItems'],
  'indusagi/openai': ['createOpenAIInvoker'],
  'indusagi/telemetry': ['createTelemetry', 'TelemetryOptionsError'],
  'indusagi/ai-sdk': ['fromAiSdk'],
  'indusagi/evals': [
    'evaluate',
    'exactMatch',
    'contains',
    'regex',
    'jsonSchema',
    'structuredEqual',
    'numericCloseness',
    'trajectoryMatch',
    'modelJudge',
    'scorer',
  ],
  'indusagi/evals/vitest': ['describeEval'],
  'indusagi/agents': ['agentTool', 'handoff', 'BudgetExceededError'],
  'indusagi/testing': ['startAnthropicServer', 'reply', 'encodeFrame', 'startDemoModel', 'DEMO_MODEL_CARD', 'DEMO_TOOLS'],
  'indusagi/mcp': ['connectMcp', 'connectMcpServers', 'mcpToolSource', 'mcpResourceSource', 'serveMcp', 'McpSdkMissingError'],
};

// Module settings a consumer's tsconfig pairs with each resolution mode. One mode also checks the
// package's declarations themselves against the types of what they import (skipLibCheck false);
// doing it in every mode would mostly re-check @types/node, at several seconds a run.
const RESOLUTIONS = {
  node16: { module: 'node16', moduleResolution: 'node16', skipLibCheck: true },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext', skipLibCheck: false },
  bundler: { module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true },
  // Ignores `exports`: the root resolves through `types`, subpaths through `typesVersions`.
  node10: { module: 'commonjs', moduleResolution: 'node10', skipLibCheck: true },
} as const;
type Mode = keyof typeof RESOLUTIONS;

type PackedFile = { path: string; size: number };
type Manifest = {
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

let scratch: string;
let consumer: string;
let installed: string;
let bare: string;
let packed: PackedFile[];
let tarball: string;
let manifest: Manifest;

const specifier = (key: string) => (key === '.' ? 'indusagi' : `indusagi/${key.slice(2)}`);
const codeEntries = () => Object.keys(manifest.exports).filter((key) => key !== './package.json');

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'indusagi-tarball-'));

  // Pack a copy of the working tree, so the prepack build cannot disturb the repo's own dist/.
  // Generated state is left behind, then planted back: a stale build output that the prepack
  // build must remove, and a session directory that must not ship.
  const source = join(scratch, 'source');
  await cp(repo, source, {
    recursive: true,
    filter: (path) => {
      const parts = relative(repo, path).split(sep);
      return !parts.includes('node_modules') && !parts.includes('.git') && !['dist', '.indusagi', 'coverage'].includes(parts[0]);
    },
  });
  await symlink(join(repo, 'node_modules'), join(source, 'node_modules'), 'dir');
  await mkdir(join(source, 'dist'));
  await writeFile(join(source, 'dist/stale-from-an-old-build.js'), 'export {};\n');
  await mkdir(join(source, '.indusagi/sessions'), { recursive: true });
  await writeFile(join(source, '.indusagi/sessions/planted.jsonl'), '{}\n');
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts=false', '--pack-destination', scratch], {
    cwd: source,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [result] = JSON.parse(stdout) as Array<{ filename: string; files: PackedFile[] }>;
  packed = result.files;
  tarball = join(scratch, result.filename);
  if (!packed.some((file) => file.path.startsWith('dist/'))) throw new Error('npm pack shipped no dist/: the prepack script must build it');

  // The consumer installs the package with every peer (to load every entry point) and the @types a
  // TypeScript project adds; a bare project installs it alone, as a user who needs no peer would.
  consumer = join(scratch, 'consumer');
  installed = join(consumer, 'node_modules/indusagi');
  manifest = await install(join(scratch, result.filename), consumer, (pkg) => {
    const wanted = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    return { required: wanted, optional: [...wanted.map(typesPackage), '@types/node'] };
  });
  bare = join(scratch, 'bare');
  await install(join(scratch, result.filename), bare, (pkg) => ({ required: Object.keys(pkg.dependencies ?? {}), optional: [] }));

  await cp(fixtures, consumer, { recursive: true });
  // One import per entry point, so every entry's declarations resolve under every mode.
  const everyEntry = codeEntries().map((key, i) => `import * as entry${i} from '${specifier(key)}';`);
  const used = `export const entries = [${codeEntries()
    .map((_, i) => `entry${i}`)
    .join(', ')}];\n`;
  await writeFile(join(consumer, 'every-entry.ts'), `${everyEntry.join('\n')}\n${used}`);
  await writeFile(join(consumer, 'every-entry.cts'), `${everyEntry.join('\n')}\n${used}`);
}, 600_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** tsc's diagnostics for the consumer compiled under `mode` ('' when it compiles). */
async function typecheck(mode: Mode): Promise<string> {
  // A CommonJS TypeScript file may import the package only where TypeScript models require(esm).
  const files = ['usage.ts', 'every-entry.ts', ...(mode === 'nodenext' ? ['usage.cts', 'every-entry.cts'] : [])];
  const compilerOptions = { ...RESOLUTIONS[mode], target: 'ES2022', strict: true, noEmit: true, types: ['node'] };
  await writeFile(join(consumer, `tsconfig.${mode}.json`), JSON.stringify({ compilerOptions, files }));
  return run(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`], { cwd: consumer }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
}

/**
 * Installs the tarball into `project` as npm installs it: unpacked into node_modules/indusagi, bins
 * linked and made executable. The packages `select` names are linked from this repo's node_modules,
 * which makes the install offline and fast (`npm install --offline` would need registry metadata that
 * `npm ci` never caches); anything the package imports without declaring it is still missing, since
 * nothing else is on the installed package's resolution path.
 */
async function install(
  tarball: string,
  project: string,
  select: (pkg: Manifest) => { required: string[]; optional: string[] },
): Promise<Manifest> {
  const target = join(project, 'node_modules/indusagi');
  await mkdir(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  const pkg = JSON.parse(await readFile(join(target, 'package.json'), 'utf8')) as Manifest;
  const { required, optional } = select(pkg);
  for (const name of new Set([...required, ...optional])) {
    const source = join(repo, 'node_modules', name);
    if (!existsSync(source)) {
      if (required.includes(name)) throw new Error(`${name} is not in node_modules: run npm install`);
      continue;
    }
    await mkdir(dirname(join(project, 'node_modules', name)), { recursive: true });
    await symlink(source, join(project, 'node_modules', name), 'dir');
  }
  await mkdir(join(project, 'node_modules/.bin'));
  for (const [name, path] of Object.entries(pkg.bin)) {
    await chmod(join(target, path), 0o755);
    await symlink(join('..', 'indusagi', path), join(project, 'node_modules/.bin', name));
  }
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: basename(project), private: true, type: 'module' }));
  return pkg;
}

function typesPackage(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describe('the packed package', () => {
  it('holds a fresh build, the sources its maps point at and the docs, and nothing else', async () => {
    const paths = packed.map((file) => file.path);
    const allowed = /^(package\.json|README\.md|CHANGELOG\.md|docs\/[\w.-]+\.md|dist\/.+\.(js|d\.ts|js\.map|d\.ts\.map)|src\/.+\.tsx?)$/;
    expect(paths.filter((path) => !allowed.test(path))).toEqual([]);
    expect(paths.filter((path) => /(^|\/)(tests?|\.indusagi)\/|\.test\.|stale-from-an-old-build/.test(path))).toEqual([]);

    const targets = [
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target))),
    ];
    for (const target of targets) expect(paths, `${target} is packed`).toContain(target.replace(/^\.\//, ''));
  });

  it('ships source maps whose sources are in the package', async () => {
    const maps = (await filesUnder(join(installed, 'dist'))).filter((path) => path.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    const unresolved: string[] = [];
    for (const map of maps) {
      const { sources, sourceRoot = '' } = JSON.parse(await readFile(map, 'utf8')) as { sources: string[]; sourceRoot?: string };
      for (const source of sources) {
        const path = resolve(dirname(map), sourceRoot, source);
        if (!path.startsWith(installed + sep) || !existsSync(path)) unresolved.push(`${relative(installed, map)} -> ${source}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it('imports every entry point from an ES module consumer, with the values the contract names', async () => {
    const { stdout } = await run(process.execPath, ['import-every-entry.mjs'], { cwd: consumer });
    const names = JSON.parse(stdout) as Record<string, string[]>;
    expect(Object.keys(names).sort()).toEqual(codeEntries().map(specifier).sort());
    for (const [entry, exported] of Object.entries(names)) expect(exported.length, `${entry} exports values`).toBeGreaterThan(0);
    for (const [entry, values] of Object.entries(CONTRACT)) expect(names[entry], entry).toEqual(expect.arrayContaining(values));
  });

  it('require()s every entry point, root included, from a CommonJS consumer and gets what import gets', async () => {
    const [required, imported] = await Promise.all(
      ['require-every-entry.cjs', 'import-every-entry.mjs'].map(
        async (script) => JSON.parse((await run(process.execPath, [script], { cwd: consumer })).stdout) as Record<string, string[]>,
      ),
    );
    expect(required.indusagi).toEqual(expect.arrayContaining(CONTRACT.indusagi));
    expect(required).toEqual(imported);
  });

  it('loads the root entry, by import and by require(), with no optional peer installed', async () => {
    const imported = await run(
      process.execPath,
      ['--input-type=module', '-e', "console.log(typeof (await import('indusagi')).createAgent)"],
      { cwd: bare },
    );
    const required = await run(process.execPath, ['--input-type=commonjs', '-e', "console.log(typeof require('indusagi').createAgent)"], {
      cwd: bare,
    });
    expect([imported.stdout.trim(), required.stdout.trim()]).toEqual(['function', 'function']);
  });

  it('loads indusagi/mcp without its optional peer, and says what to install when a client connects', async () => {
    const script = [
      "const { connectMcp, McpSdkMissingError } = await import('indusagi/mcp');",
      "const error = await connectMcp('x', { command: 'node' }).catch((e) => e);",
      'console.log(JSON.stringify({ typed: McpSdkMissingError.isInstance(error), kind: error.kind, message: error.message }));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: bare });
    expect(JSON.parse(stdout)).toEqual({
      typed: true,
      kind: 'mcp_sdk_missing',
      message: expect.stringContaining('npm install @modelcontextprotocol/sdk'),
    });
  });

  it.each(Object.keys(RESOLUTIONS) as Mode[])('typechecks a consumer under %s resolution', async (mode) => {
    const hint = mode === 'node10' ? ' (node10 finds a subpath only through "typesVersions" in package.json)' : '';
    expect(await typecheck(mode), `tsc under ${mode}${hint}`).toBe('');
  });

  it('installs with `npm install <tarball>` exactly as the README says, and the installed package and bin work', async () => {
    // The README's install line for today, before the first release: real npm, real registry for the
    // dependencies (the cache `npm ci` filled serves their tarballs), no links from this repo.
    const project = join(scratch, 'npm-install');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'npm-install-check', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
    const loaded = await run(
      process.execPath,
      ['--input-type=module', '-e', "const m = await import('indusagi'); console.log(typeof m.createAgent, typeof m.tool)"],
      { cwd: project },
    );
    expect(loaded.stdout.trim()).toBe('function function');
    const { stdout: version } = await run(join(project, 'node_modules/.bin/indusagi'), ['--version'], { cwd: project });
    expect(version.trim()).toBe(manifest.version);
  });

  it('runs the indusagi command from the installed bin, through a chat turn with the offline demo model', async () => {
    const bin = join(consumer, 'node_modules/.bin/indusagi');
    const { stdout: version } = await run(bin, ['--version'], { cwd: consumer });
    expect(version.trim()).toBe(manifest.version);

    // The whole chat graph from the tarball: the SDK, the demo model's loopback server, a tool, the session store.
    await mkdir(join(consumer, 'notes'));
    await writeFile(join(consumer, 'notes/groceries.txt'), 'milk\n');
    const { ANTHROPIC_API_KEY: _key, ANTHROPIC_BASE_URL: _url, ...env } = process.env;
    const chat = run(bin, ['chat'], { cwd: consumer, env });
    chat.child.stdin!.end('list files in notes\n');
    const { stdout } = await chat;
    expect(stdout).toContain('offline demo model');
    expect(stdout).toMatch(/files\.list: groceries\.txt/);
  });

  it("runs the README's examples from the consumer project, against the demo model and the kit of the installed indusagi/testing", async () => {
    const blocks = extractBlocks(await readFile(join(repo, 'README.md'), 'utf8'));
    for (const [i, block] of blocks.entries()) {
      const { code } = await transform(block, { loader: 'ts', format: 'esm' });
      await writeFile(join(consumer, `readme-${i}.mjs`), code);
    }
    // The first example talks to Claude through ANTHROPIC_BASE_URL; the demo model stands in for it.
    const runner = [
      "import { startDemoModel } from 'indusagi/testing';",
      'const demo = await startDemoModel({ chunkDelayMs: 0 });',
      'process.env.ANTHROPIC_BASE_URL = demo.baseURL;',
      "process.env.ANTHROPIC_API_KEY = 'offline-demo';",
      ...blocks.map((_, i) => `console.log('@@block ${i}');\nawait import('./readme-${i}.mjs');`),
      'await demo.close();',
    ];
    await writeFile(join(consumer, 'readme-examples.mjs'), runner.join('\n'));
    const { ANTHROPIC_API_KEY: _key, ANTHROPIC_BASE_URL: _url, ...env } = process.env;
    const { stdout, stderr } = await run(process.execPath, ['readme-examples.mjs'], { cwd: consumer, env });
    expect(stderr).toBe('');
    const printed = stdout.split(/^@@block \d+\n/m).slice(1);
    expect(printed).toHaveLength(blocks.length);
    for (const [index, block] of blocks.entries()) {
      const ran = { index, expected: expectations(block), printed: printed[index].split('\n').map((line) => line.trim()) };
      expect(missing(ran), printed[index]).toEqual([]);
    }
  });
});
