import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtInTools, Workspace } from '../../../src/cli/tools/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { ToolError } from '../../../src/entries/errors.js';
import type { ToolDefinition } from '../../../src/runtime/contract/index.js';

// A second process flips `workspace/link` between a folder inside the workspace and one outside it,
// as fast as it can, while the file tools read and write through the link. A tool may refuse (the
// link pointed outside) or succeed (it pointed inside); it must never read or write outside.
const READS = 1_500;
const WRITES = 400;

let dir: string;
let root: string;
let outside: string;
let tools: Map<string, ToolDefinition>;
let flipper: ChildProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-symlink-race-'));
  root = join(dir, 'workspace');
  outside = join(dir, 'outside');
  await mkdir(join(root, 'inside'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'inside', 'secret.txt'), 'inside');
  await writeFile(join(outside, 'secret.txt'), 'OUTSIDE');
  await writeFile(join(outside, 'only-outside.txt'), '');
  await symlink('inside', join(root, 'link'));
  const defs = builtInTools({ workspace: await Workspace.open(root), memory: createMemoryStore(), maxReadChars: 100 });
  tools = new Map(defs.map((t) => [t.name, t]));
});

afterEach(async () => {
  // The flipper may be mid-rename when killed: wait until it is gone, or the folder it writes in may not be empty yet.
  if (flipper !== undefined && flipper.exitCode === null && flipper.signalCode === null) {
    const gone = new Promise((resolve) => flipper!.once('exit', resolve));
    flipper.kill('SIGKILL');
    await gone;
  }
  flipper = undefined;
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** Starts the flipping process; resolves once it has flipped the link at least once. */
function startFlipping(): Promise<void> {
  const link = join(root, 'link');
  const script = `
    const { symlinkSync, renameSync } = require('node:fs');
    const targets = ['inside', ${JSON.stringify(outside)}];
    for (let i = 0; ; i++) {
      const next = ${JSON.stringify(link)} + '.next';
      symlinkSync(targets[i % 2], next);
      renameSync(next, ${JSON.stringify(link)}); // atomic: the link always exists, pointing one way or the other
      if (i === 1) process.stdout.write('flipping\\n');
    }`;
  flipper = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    flipper!.once('error', reject);
    flipper!.stdout!.once('data', () => resolve());
  });
}

function run(name: string, input: unknown): Promise<unknown> {
  return Promise.resolve(tools.get(name)!.execute(input, { signal: new AbortController().signal, callId: 'c1' }));
}

async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    return String(await call);
  } catch (error) {
    if (ToolError.isInstance(error)) return 'refused';
    throw error;
  }
}

describe('file tools against a symlink swapped while they work (TOCTOU)', () => {
  it(`${READS} reads through the link: none returns the outside file`, async () => {
    await startFlipping();
    const seen = { inside: 0, refused: 0, escaped: 0 };
    for (let i = 0; i < READS; i++) {
      const result = await outcome(run('files.read', { path: 'link/secret.txt' }));
      if (result === 'inside') seen.inside++;
      else if (result === 'refused') seen.refused++;
      else seen.escaped++; // the outside file, whole or cut to the inside file's size
    }
    expect(seen.escaped).toBe(0);
    // Both directions happened during calls, so the race was really run.
    expect(seen.inside).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it(`${WRITES} writes through the link: none lands outside`, async () => {
    await startFlipping();
    const seen = { written: 0, refused: 0 };
    for (let i = 0; i < WRITES; i++) {
      const result = await outcome(run('files.write', { path: `link/w${i}.txt`, content: `write ${i}` }));
      if (result === 'refused') seen.refused++;
      else seen.written++;
    }
    flipper!.kill('SIGKILL');
    expect((await readdir(outside)).sort()).toEqual(['only-outside.txt', 'secret.txt']);
    expect(seen.written).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
    // Every write that reported success is where it said, and nothing else (no temporary files) is left.
    expect((await readdir(join(root, 'inside'))).filter((n) => n !== 'secret.txt')).toHaveLength(seen.written);
  });

  it('listing through the link never shows the outside folder', async () => {
    await startFlipping();
    const seen = { inside: 0, refused: 0, escaped: 0 };
    for (let i = 0; i < 500; i++) {
      const result = await outcome(run('files.list', { path: 'link' }));
      if (result === 'secret.txt') seen.inside++;
      else if (result === 'refused') seen.refused++;
      else seen.escaped++;
    }
    expect(seen.escaped).toBe(0);
    expect(seen.inside).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });
});
