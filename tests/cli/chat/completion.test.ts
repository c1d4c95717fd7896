import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atToken, rankPaths, workspacePaths } from '../../../src/cli/chat/terminal/index.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'indusagi-paths-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('@ completion', () => {
  it('finds the @word being typed at the cursor, and only that', () => {
    expect(atToken('read @src/ma')).toEqual({ start: 5, query: 'src/ma' });
    expect(atToken('@')).toEqual({ start: 0, query: '' });
    expect(atToken('mail me@example.com')).toBeNull();
    expect(atToken('read @src/main.ts and')).toBeNull();
  });

  it('lists the workspace breadth first, folders marked, without .git, node_modules, .indusagi or following symlinks', async () => {
    await mkdir(join(root, 'src', 'cli'), { recursive: true });
    await mkdir(join(root, '.git'));
    await mkdir(join(root, 'node_modules', 'x'), { recursive: true });
    await mkdir(join(root, '.indusagi'));
    await writeFile(join(root, 'src', 'cli', 'main.ts'), '');
    await writeFile(join(root, 'README.md'), '');
    await symlink('/', join(root, 'rootlink'));
    expect(await workspacePaths(root)).toEqual(['README.md', 'rootlink', 'src/', 'src/cli/', 'src/cli/main.ts']);
  });

  it('ranks fuzzy matches: in order, contiguous and at name starts first, non-matches out', () => {
    const paths = ['src/cli/main.ts', 'src/cli/chat/markdown.ts', 'docs/cli.md', 'src/runtime/agent/main-loop.ts', 'package.json'];
    expect(rankPaths('main', paths)).toEqual(['src/cli/main.ts', 'src/runtime/agent/main-loop.ts']);
    expect(rankPaths('clmd', paths)[0]).toBe('docs/cli.md');
    expect(rankPaths('zzz', paths)).toEqual([]);
    expect(rankPaths('', paths, 2)).toEqual(['docs/cli.md', 'package.json']);
  });
});
