import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryFileError, openMemoryFile } from '../../src/cli/memory-file.js';
import { makeWorkspace, runCli } from './cli-process.js';

const saved = (id: string, text: string) => JSON.stringify({ op: 'save', record: { id, text, createdAt: 1 } });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-memory-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the memory log after a crash tore its last line', () => {
  it('starts the next append on a line of its own, so every later open still reads the log', async () => {
    const path = join(dir, 'memory.jsonl');
    await writeFile(path, `${saved('r1', 'kept fact')}\n{"op":"save","rec`);

    const first = await openMemoryFile(path);
    expect(first.report).toEqual({ tornTail: true, skipped: [{ line: 2, reason: expect.stringContaining('cut short') }] });
    await first.save('saved after the crash');

    const again = await openMemoryFile(path);
    expect((await again.all()).map((r) => r.text)).toEqual(['kept fact', 'saved after the crash']);
    // The torn fragment is kept (nothing is rewritten in place) and reported as a skipped line.
    expect(again.report).toEqual({ tornTail: false, skipped: [{ line: 2, reason: expect.stringContaining('not JSON') }] });
    expect(await readFile(path, 'utf8')).toMatch(/\{"op":"save","rec\n\{"op":"save".*"saved after the crash".*\}\n$/);
  });

  it('applies a whole final entry that only lacks its newline, and still separates the next one', async () => {
    const path = join(dir, 'memory.jsonl');
    await writeFile(path, saved('r1', 'no newline yet'));
    const store = await openMemoryFile(path);
    expect(store.report).toEqual({ tornTail: false, skipped: [] });
    await store.save('next');
    expect((await (await openMemoryFile(path)).all()).map((r) => r.text)).toEqual(['no newline yet', 'next']);
  });

  it('still refuses a JSON line it does not understand, naming the line', async () => {
    const path = join(dir, 'memory.jsonl');
    await writeFile(path, `${saved('r1', 'a')}\n{"op":"rename","id":"r1"}\n`);
    const error = await openMemoryFile(path).catch((e: unknown) => e);
    expect(MemoryFileError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`${path}:2: expected {"op":"save","record":…} or {"op":"forget","id":…}`);
  });

  it('memory ls and edit name the torn line on stderr and still list and edit what was read', async () => {
    const memory = join(dir, 'memory.jsonl');
    await writeFile(memory, `${saved('r1aaaaaa', 'the build runs on Fridays')}\n${saved('r2bbbbbb', 'ship on Mondays')}\n{"op":"sa`);
    const note = `indusagi: memory file ${memory}: skipped line 3, incomplete final line (a write cut short)\n`;

    const ls = await runCli(['memory', 'ls', '--memory', memory], dir);
    expect(ls.code).toBe(0);
    expect(ls.stderr).toBe(note);
    expect(ls.stdout).toMatch(/^r1aaaaaa .* the build runs on Fridays\nr2bbbbbb .* ship on Mondays\n$/);

    const edit = await runCli(['memory', 'edit', 'r2', 'ship on Tuesdays', '--memory', memory], dir);
    expect({ code: edit.code, stderr: edit.stderr, stdout: edit.stdout }).toEqual({
      code: 0,
      stderr: note,
      stdout: 'edited r2bbbbbb: ship on Tuesdays\n',
    });
    // The edit closed the torn line off; it is still named, now as a line that is not JSON.
    const again = await runCli(['memory', 'ls', '--memory', memory], dir);
    expect(again.stderr).toBe(`indusagi: memory file ${memory}: skipped line 3, not JSON (the remains of a write cut short)\n`);
    expect(again.stdout).toContain('ship on Tuesdays');
  }, 300_000);

  it('the chat keeps starting (exit 0) after a torn line, says what it skipped, and remembers across starts', async () => {
    const workspace = await makeWorkspace();
    try {
      const memory = join(workspace.dir, '.indusagi', 'memory.jsonl');
      await mkdir(dirname(memory), { recursive: true });
      await writeFile(memory, `${saved('r1', 'the build runs on Fridays')}\n{"op":"sa`);

      const second = await runCli(['chat'], workspace.dir, ['remember that releases ship on Mondays']);
      expect(second.stderr).toBe('');
      expect(second.code).toBe(0);
      expect(second.stdout).toContain(`memory file ${memory}: skipped line 2`);

      const third = await runCli(['chat'], workspace.dir, [
        'what do you remember about releases?',
        'what do you remember about the build?',
      ]);
      expect(third.stderr).toBe('');
      expect(third.code).toBe(0);
      expect(third.stdout).toContain('✓ memory.recall: - releases ship on Mondays');
      expect(third.stdout).toContain('✓ memory.recall: - the build runs on Fridays');
    } finally {
      await workspace.cleanup();
    }
  }, 300_000); // two real chat processes, slow on a loaded two-core machine
});
