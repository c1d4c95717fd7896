import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectations, extractBlocks, missing } from '../support/doc-examples.js';
import { installTarball, packedTarball } from '../support/packed.js';
import type { Manifest, PackedFile } from '../support/packed.js';

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
  'indusagi/anthropic': ['runAgent', 'MissingApiKeyError'],
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
  'indusagi/store': ['MemorySessionStore', 'SessionWriter', 'loadSession', 'assertRecords'],
  'indusagi/compaction': ['estimateTurnTokens', 'isSummaryTurn', 'COMPACTION_PREFIX', 'HistoryIndex', 'historyTools'],
  'indusagi/models': [
    'registerModelCard',
    'modelCard',
    'resolveModel',
    'fallbackModels',
    'estimateCost',
    'parsePartialJson',
    'StreamIdleError',
  ],
  'indusagi/guardrails': ['maxPromptSize', 'denyToolArguments'],
  'indusagi/tools': ['tool', 'toToolset', 'mergeToolsets', 'lazyToolset', 'SEARCH_TOOLS', 'UnknownToolError'],
  'indusagi/context': ['createContextManager', 'memorySource', 'lazyToolSource', 'workingMemory'],
  'indusagi/parts': ['agentRunParts', 'agentRunEvents', 'assertAgentPart'],
  'indusagi/transport': ['sendParts', 'partsResponse', 'readParts', 'fetchParts'],
  'indusagi/ui-message': ['uiMessageStreamResponse', 'sendUIMessageStream', 'uiMessageChunks', 'readChatRequest', 'uiMessagesFromTurns'],
  'indusagi/schema': ['compileSchema', 'SchemaDefinitionError'],
  'indusagi/errors': ['IndusagiError', 'RunFault', 'SessionLockedError', 'ToolError', 'ModelCallError', 'InputGuardrailTripwireTriggered'],
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
  'indusagi/chat': ['createAssistantStore', 'itemsFromTurns', 'turnsFromItems'],
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
    'loadLocomo',
    'locomoCases',
    'memoryRecallEval',
    'locomoQaEval',
    'LocomoDataError',
  ],
  'indusagi/evals/vitest': ['describeEval'],
  'indusagi/agents': ['agentTool', 'handoff', 'AgentToolError'],
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
  // The run's one pack (tests/support/packed.ts), shared with the docs test.
  const result = await packedTarball();
  packed = result.files;
  tarball = result.tarball;
  if (!packed.some((file) => file.path.startsWith('dist/'))) throw new Error('npm pack shipped no dist/: the prepack script must build it');

  // The consumer installs the package with every peer (to load every entry point) and the @types a
  // TypeScript project adds; a bare project installs it alone, as a user who needs no peer would.
  consumer = join(scratch, 'consumer');
  installed = join(consumer, 'node_modules/indusagi');
  manifest = await install(tarball, consumer, (pkg) => {
    const wanted = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    return { required: wanted, optional: [...wanted.map(typesPackage), '@types/node'] };
  });
  bare = join(scratch, 'bare');
  await install(tarball, bare, (pkg) => ({ required: Object.keys(pkg.dependencies ?? {}), optional: [] }));

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

const install = installTarball;

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
    // The README's install lines for today, before the first release, as written from `cd ../your-app`
    // on (the tarball's path aside): real npm, real registry for the dependencies (the cache `npm ci`
    // filled serves their tarballs), no links from this repo. A project they make must run a file with
    // top-level `await`, as the README's examples are (issue 41.5: `npm init -y` alone makes CommonJS).
    const project = join(scratch, 'npm-install');
    await mkdir(project);
    const install = readmeInstallLines().replaceAll('../indusagi/indusagi-0.1.0.tgz', tarball);
    expect(install).toContain('npm install ');
    const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_prefer_offline: 'true' };
    await run('bash', ['-euc', install], { cwd: project, env, maxBuffer: 16 * 1024 * 1024 });
    await writeFile(join(project, 'main.js'), "const m = await import('indusagi');\nconsole.log(typeof m.createAgent, typeof m.tool);\n");
    const loaded = await run(process.execPath, ['main.js'], { cwd: project });
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

/** The README's install block from its `cd ../your-app` on: the commands a reader runs in their project. */
function readmeInstallLines(): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf('## Install')).match(/^```sh\n([\s\S]*?)^```$/m);
  if (!block) throw new Error('README.md: no ```sh block under "## Install"');
  const lines = block[1].split('\n');
  const at = lines.findIndex((line) => line.includes('cd ../your-app'));
  if (at < 0) throw new Error('README.md: the install block never enters ../your-app');
  return lines.slice(at + 1).join('\n');
}
