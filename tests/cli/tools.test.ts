import { mkdtemp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtInTools, Workspace } from '../../src/cli/tools/index.js';
import { openMemoryFile } from '../../src/cli/memory-file.js';
import { ToolError } from '../../src/entries/errors.js';
import { sanitizeToolName } from '../../src/tools/index.js';
import { DEMO_TOOLS } from '../../src/demo/index.js';
import type { ToolDefinition } from '../../src/runtime/contract/index.js';

let dir: string;
let root: string;
let tools: Map<string, ToolDefinition>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-cli-tools-'));
  root = join(dir, 'workspace');
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  await writeFile(join(dir, 'secret.txt'), 'do not read');
  const memory = await openMemoryFile(join(dir, 'memory.jsonl'));
  const defs = builtInTools({ workspace: await Workspace.open(root), memory, maxReadChars: 50 });
  tools = new Map(defs.map((t) => [t.name, t]));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(name: string, input: unknown) {
  return Promise.resolve(tools.get(name)!.execute(input, { signal: new AbortController().signal, callId: 'c1' }));
}

async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ToolError.isInstance(error)).toBe(true);
  return error as ToolError;
}

describe('built-in chat tools', () => {
  it('offers every tool the demo model can call, under the name it calls', () => {
    const offered = new Set([...tools.keys()].map(sanitizeToolName));
    for (const name of Object.values(DEMO_TOOLS)) expect(offered.has(name)).toBe(true);
  });

  it('lists folders with a trailing slash and reads text files', async () => {
    expect(await run('files.list', { path: '.' })).toBe('src/');
    expect(await run('files.list', { path: 'src' })).toBe('a.ts');
    expect(await run('files.read', { path: 'src/a.ts' })).toBe('export const a = 1;\n');
  });

  it('cuts a long file and says so', async () => {
    await writeFile(join(root, 'long.txt'), 'x'.repeat(500));
    const text = String(await run('files.read', { path: 'long.txt' }));
    expect(text.startsWith('x'.repeat(50) + '\n[cut: long.txt is 500 bytes')).toBe(true);
  });

  it('refuses paths outside the workspace, through .. and through symlinks', async () => {
    expect((await toolError(run('files.read', { path: '../secret.txt' }))).message).toContain('outside the workspace');
    await symlink(dir, join(root, 'escape'));
    expect((await toolError(run('files.read', { path: 'escape/secret.txt' }))).message).toContain('outside the workspace');
    expect((await toolError(run('files.write', { path: 'escape/new.txt', content: 'x' }))).message).toContain('outside the workspace');
    expect(await readdir(dir)).not.toContain('new.txt');
  });

  it('tells the model what is wrong with a missing file, a folder, binary data or bad input', async () => {
    expect((await toolError(run('files.read', { path: 'nope.txt' }))).message).toBe('nope.txt does not exist');
    expect((await toolError(run('files.read', { path: 'src' }))).message).toContain('is a folder');
    await writeFile(join(root, 'bin.dat'), Buffer.from([1, 0, 2]));
    expect((await toolError(run('files.read', { path: 'bin.dat' }))).message).toContain('looks binary');
    expect((await toolError(run('files.list', {}))).message).toContain('path');
  });

  it('writes only behind approval, creating folders and leaving no temporary files', async () => {
    expect(tools.get('files.write')!.needsApproval).toBe(true);
    expect(await run('files.write', { path: 'notes/today.txt', content: 'hello' })).toBe('Wrote 5 bytes to notes/today.txt');
    expect(await readFile(join(root, 'notes', 'today.txt'), 'utf8')).toBe('hello');
    expect(await readdir(join(root, 'notes'))).toEqual(['today.txt']);
  });

  it('reports the time', async () => {
    const text = String(await run('clock.now', {}));
    expect(Date.parse(text.split(' ')[0])).not.toBeNaN();
  });
});

describe('memory file', () => {
  it('remembers across openings, as a later process would see it', async () => {
    expect(await run('memory.remember', { fact: 'my cat is called Tom' })).toBe('Saved to memory: my cat is called Tom');
    const reopened = await openMemoryFile(join(dir, 'memory.jsonl'));
    const [hit] = await reopened.search('cat');
    expect(hit.text).toBe('my cat is called Tom');
    expect(await reopened.forget(hit.id)).toBe(true);
    expect(await (await openMemoryFile(join(dir, 'memory.jsonl'))).search('cat')).toEqual([]);
  });

  it('recalls through the tool, and says when nothing matches', async () => {
    await run('memory.remember', { fact: 'the build runs on Fridays' });
    expect(await run('memory.recall', { query: 'when does the build run?' })).toBe('- the build runs on Fridays');
    expect(await run('memory.recall', { query: 'zebra' })).toBe('Nothing in memory matches "zebra".');
  });

  it('ignores a torn last line from a crash (tests/cli/memory-file.test.ts covers what follows)', async () => {
    const path = join(dir, 'torn.jsonl');
    const saved = { op: 'save', record: { id: 'r1', text: 'kept fact', createdAt: 1 } };
    await writeFile(path, `${JSON.stringify(saved)}\n{"op":"save","rec`);
    expect((await (await openMemoryFile(path)).search('kept')).map((r) => r.text)).toEqual(['kept fact']);
  });
});
