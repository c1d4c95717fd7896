import { createServer, type Server } from 'node:net';
import { mkdtemp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtInTools, Workspace } from '../../../src/cli/tools/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { ToolError } from '../../../src/entries/errors.js';
import type { ToolDefinition } from '../../../src/runtime/contract/index.js';

// The same boundary in both of the workspace's modes: pinned to descriptors (Linux, /proc/self/fd)
// and the portable one that names entries by their checked real path.
describe.each([
  { mode: 'pinned to descriptors', pinByDescriptor: true },
  { mode: 'portable', pinByDescriptor: false },
])('the workspace boundary, $mode', ({ pinByDescriptor }) => {
  let dir: string;
  let root: string;
  let tools: Map<string, ToolDefinition>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-workspace-'));
    root = join(dir, 'workspace');
    await mkdir(join(root, 'docs'), { recursive: true });
    await writeFile(join(root, 'docs', 'a.md'), 'inside');
    await writeFile(join(dir, 'secret.txt'), 'OUTSIDE');
    const workspace = await Workspace.open(root, { pinByDescriptor });
    tools = new Map(builtInTools({ workspace, memory: createMemoryStore(), maxReadChars: 100 }).map((t) => [t.name, t]));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = (name: string, input: unknown) =>
    Promise.resolve(tools.get(name)!.execute(input, { signal: new AbortController().signal, callId: 'c1' }));
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      (value) => `resolved: ${String(value)}`,
      (error: unknown) => (ToolError.isInstance(error) ? error.message : `raw: ${String(error)}`),
    );

  it('refuses every way out: .., an absolute path, a folder link, a file link, for read, list and write', async () => {
    await symlink(dir, join(root, 'up'));
    await symlink(join(dir, 'secret.txt'), join(root, 'secret-link.txt'));
    for (const [tool, path] of [
      ['files.read', '../secret.txt'],
      ['files.read', join(dir, 'secret.txt')],
      ['files.read', 'up/secret.txt'],
      ['files.read', 'secret-link.txt'],
      ['files.list', 'up'],
      ['files.list', 'docs/../..'],
      ['files.write', 'up/new.txt'],
      ['files.write', 'up/deeper/new.txt'],
      ['files.write', 'secret-link.txt'],
    ]) {
      expect(await refusal(run(tool, { path, content: 'x' }))).toBe(
        `${path} is outside the workspace (${root}); only files under it are reachable`,
      );
    }
    expect((await readdir(dir)).sort()).toEqual(['secret.txt', 'workspace']);
    expect(await readFile(join(dir, 'secret.txt'), 'utf8')).toBe('OUTSIDE');
  });

  it('follows links that stay inside, and creates missing folders inside', async () => {
    await symlink('docs', join(root, 'manual'));
    expect(await run('files.read', { path: 'manual/a.md' })).toBe('inside');
    expect(await run('files.list', { path: 'manual' })).toBe('a.md');
    expect(await run('files.write', { path: 'manual/new/deep/b.md', content: 'made' })).toBe('Wrote 4 bytes to manual/new/deep/b.md');
    expect(await readFile(join(root, 'docs', 'new', 'deep', 'b.md'), 'utf8')).toBe('made');
    expect(await run('files.list', { path: '.' })).toBe(['docs/', 'manual'].join('\n'));
  });

  it('names what is wrong: a missing file, a file used as a folder, a socket', async () => {
    expect(await refusal(run('files.read', { path: 'docs/none.md' }))).toBe('docs/none.md does not exist');
    expect(await refusal(run('files.read', { path: 'docs/a.md/x' }))).toBe('docs/a.md/x is not a folder');
    expect(await refusal(run('files.list', { path: 'docs/a.md' }))).toBe('docs/a.md is not a folder');
    expect(await refusal(run('files.write', { path: 'docs/a.md/x', content: '' }))).toBe('docs/a.md/x is not a folder');
    expect(await refusal(run('files.write', { path: 'docs', content: '' }))).toBe('docs is a folder');
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, 'sock'), resolve));
    try {
      expect(await refusal(run('files.read', { path: 'sock' }))).toMatch(/^sock is not a regular file \(a socket/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await readdir(join(root, 'docs'))).toEqual(['a.md']);
  });
});
