// The CLI's file tools since they no longer check a path and then open it by name: each call opens
// the path, checks where the descriptor really leads (/proc/self/fd), and uses only that descriptor.
// Against the raw baseline of the same job done naively, in the same run, batches taken in turn:
// files.read against open by name + fstat + read + close (no check at all) of a file three folders
// deep; files.list against a bare readdir (the tool also sorts and formats the entries). No target:
// the figures say what closing the symlink race costs per call.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtInTools, Workspace } from '../src/cli/tools/index.js';
import { createMemoryStore } from '../src/memory/index.js';
import { median, report, sample } from './stats.js';

const CALLS = 2_000;
const SAMPLES = 9;

const root = mkdtempSync(join(tmpdir(), 'indusagi-bench-files-'));
mkdirSync(join(root, 'a', 'b', 'c'), { recursive: true });
const text = 'x'.repeat(2_000);
writeFileSync(join(root, 'a', 'b', 'c', 'file.txt'), text);
for (let i = 0; i < 50; i++) writeFileSync(join(root, 'a', 'b', `entry-${i}.txt`), '');

const tools = new Map(
  builtInTools({ workspace: await Workspace.open(root), memory: createMemoryStore(), maxReadChars: 4_000 }).map((t) => [t.name, t]),
);
const ctx = { signal: new AbortController().signal, callId: 'bench' };
const read = tools.get('files.read')!;
const list = tools.get('files.list')!;

async function naiveRead(): Promise<string> {
  const handle = await open(join(root, 'a', 'b', 'c', 'file.txt'), 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(size);
    await handle.read(buffer, 0, size, 0);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Microseconds per call of `subject` and of `baseline`, batches of each taken in turn so load drifts hit both alike. */
async function interleaved(subject: () => Promise<unknown>, baseline: () => Promise<unknown>): Promise<[number, number]> {
  const batch = async (fn: () => Promise<unknown>) =>
    ((
      await sample(1, async () => {
        for (let i = 0; i < CALLS; i++) await fn();
      })
    )[0] /
      CALLS) *
    1000;
  await batch(subject); // warm-up
  await batch(baseline);
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round < SAMPLES; round++) {
    times[0].push(await batch(subject));
    times[1].push(await batch(baseline));
  }
  return [median(times[0]), median(times[1])];
}

const [toolRead, rawRead] = await interleaved(() => Promise.resolve(read.execute({ path: 'a/b/c/file.txt' }, ctx)), naiveRead);
report('files.read, 3 folders deep, per call', toolRead, rawRead, 'us');

const [toolList, rawList] = await interleaved(
  () => Promise.resolve(list.execute({ path: 'a/b' }, ctx)),
  () => readdir(join(root, 'a', 'b'), { withFileTypes: true }),
);
report('files.list, 51 entries, per call', toolList, rawList, 'us');

rmSync(root, { recursive: true, force: true });
