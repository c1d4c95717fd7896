import { mkdtemp, mkdir, readFile, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtInTools, editDiff, lineDiff, Workspace } from '../../../src/cli/tools/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { ToolError } from '../../../src/entries/errors.js';
import type { ToolDefinition } from '../../../src/runtime/contract/index.js';

let dir: string;
let root: string;
let workspace: Workspace;
let edit: ToolDefinition;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'indusagi-edit-')));
  root = join(dir, 'workspace');
  await mkdir(join(root, 'src'), { recursive: true });
  await writeFile(join(root, 'src', 'app.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
  await writeFile(join(dir, 'outside.ts'), 'const secret = 1;\n');
  workspace = await Workspace.open(root);
  edit = builtInTools({ workspace, memory: createMemoryStore(), maxReadChars: 1_000 }).find((t) => t.name === 'files.edit')!;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (input: unknown) => Promise.resolve(edit.execute(input, { signal: new AbortController().signal, callId: 'c1' }));
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ToolError.isInstance(error)).toBe(true);
  return (error as Error).message;
}

describe('the files.edit tool', () => {
  it('replaces one exact string after approval, leaving the rest and no temporary file', async () => {
    expect(edit.needsApproval).toBe(true);
    expect(await run({ path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' })).toBe(
      'Edited src/app.ts: replaced one occurrence',
    );
    expect(await readFile(join(root, 'src', 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
    expect(await readdir(join(root, 'src'))).toEqual(['app.ts']);
  });

  it('refuses a string that is absent or not unique, and changes nothing; replace_all changes every one', async () => {
    const file = join(root, 'src', 'app.ts');
    expect(await refusal(run({ path: 'src/app.ts', old_string: 'const d', new_string: 'x' }))).toBe(
      'old_string does not occur in src/app.ts; read the file and quote the exact text, whitespace included',
    );
    expect(await refusal(run({ path: 'src/app.ts', old_string: 'const', new_string: 'let' }))).toBe(
      'old_string occurs 3 times in src/app.ts; quote more of the surrounding text to pick one, or set replace_all to change all of them',
    );
    expect(await refusal(run({ path: 'src/app.ts', old_string: 'const a', new_string: 'const a' }))).toMatch(/nothing would change/);
    expect(await readFile(file, 'utf8')).toBe('const a = 1;\nconst b = 2;\nconst c = 3;\n');
    expect(await run({ path: 'src/app.ts', old_string: 'const', new_string: 'let', replace_all: true })).toBe(
      'Edited src/app.ts: replaced 3 occurrences',
    );
    expect(await readFile(file, 'utf8')).toBe('let a = 1;\nlet b = 2;\nlet c = 3;\n');
  });

  it('replaces literally: $& and $1 in the new text are text', async () => {
    await run({ path: 'src/app.ts', old_string: '1', new_string: "'$&$1'" });
    expect(await readFile(join(root, 'src', 'app.ts'), 'utf8')).toContain("const a = '$&$1';");
  });

  it('stays inside the workspace: a path that leaves it, or a symlink leading out, is refused and nothing changes', async () => {
    expect(await refusal(run({ path: '../outside.ts', old_string: 'secret', new_string: 'x' }))).toMatch(/outside the workspace/);
    await symlink(join(dir, 'outside.ts'), join(root, 'link.ts'));
    expect(await refusal(run({ path: 'link.ts', old_string: 'secret', new_string: 'x' }))).toMatch(/outside the workspace/);
    expect(await refusal(editDiff(workspace, { path: 'link.ts', old_string: 'secret', new_string: 'x' }))).toMatch(/outside the workspace/);
    expect(await readFile(join(dir, 'outside.ts'), 'utf8')).toBe('const secret = 1;\n');
  });

  it('shows the approval diff with context and line numbers; refuses at run time what changed since', async () => {
    expect(await editDiff(workspace, { path: 'src/app.ts', old_string: 'const c = 3;', new_string: 'const c = 30;\n// done' })).toEqual([
      { kind: '@', text: 'line 1' },
      { kind: ' ', text: 'const a = 1;' },
      { kind: ' ', text: 'const b = 2;' },
      { kind: '-', text: 'const c = 3;' },
      { kind: '+', text: 'const c = 30;' },
      { kind: '+', text: '// done' },
      { kind: ' ', text: '' },
    ]);
    // Approved on what it showed, but the file changed before the call ran: the string is gone.
    await writeFile(join(root, 'src', 'app.ts'), 'const c = 4;\n');
    expect(await refusal(run({ path: 'src/app.ts', old_string: 'const c = 3;', new_string: 'x' }))).toMatch(/does not occur/);
  });

  it('diffs a replace_all across a long file as separate hunks, not the whole middle', () => {
    const before = Array.from({ length: 60 }, (_, i) => `line ${i + 1}${i === 4 || i === 49 ? ' TODO' : ''}`).join('\n');
    const diff = lineDiff(before, before.replaceAll(' TODO', ' DONE'));
    expect(diff.filter((l) => l.kind === '@')).toEqual([
      { kind: '@', text: 'line 3' },
      { kind: '@', text: 'line 48' },
    ]);
    expect(diff.filter((l) => l.kind === '-').map((l) => l.text)).toEqual(['line 5 TODO', 'line 50 TODO']);
    expect(diff).toHaveLength(2 * (1 + 2 + 2 + 2));
  });
});
