// Resuming from the end of the file (checkpoints) must give exactly what reading the whole file gives.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore, type LoadedSessionFile } from '../../../src/runtime/store/index.js';
import type { ModelUsage, Turn } from '../../../src/runtime/contract/index.js';
import { assistant, tempRoot, user } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => ({ root, cleanup } = tempRoot({ ramBacked: true })));
afterEach(() => cleanup());

/** A small seeded generator (mulberry32), so a failing case can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const summary = (text: string): Turn => ({ role: 'user', blocks: [{ kind: 'text', text: `[condensed earlier context] ${text}` }] });
const usage = (n: number): ModelUsage => ({ inputTokens: n, outputTokens: n % 7, cacheWriteTokens: 0, cacheReadTokens: n * 2 });

/**
 * Writes one random session the way agents do: turns appended and persisted in small batches, now and
 * then a condensation, a branch back into the live context or to an old node, and the session closed
 * and reopened (resumed from the tail, or read whole). Returns the store and the session id.
 */
async function writeRandomSession(seed: number): Promise<{ store: SessionStore; id: string }> {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const store = new SessionStore(root, [], { checkpointBytes: 300 + Math.floor(next() * 4000) });
  const id = `s${seed}`;
  let graph = await store.openSession(id);
  let at = 1;
  const steps = 40 + Math.floor(next() * 160);
  for (let step = 0; step < steps; step++) {
    const roll = next();
    const text = `${step} ${'lorem ipsum dolor '.repeat(Math.floor(next() * 20))}`;
    if (roll < 0.55) {
      if (next() < 0.5) graph.append(user(text), at++);
      else graph.append(assistant(text), at++, { usage: usage(step), model: 'claude-test' });
    } else if (roll < 0.65 && graph.leaf !== null) {
      const context = graph.contextNodes(graph.leaf);
      const keep = next() < 0.15 ? null : pick(context).id;
      graph.append(summary(text), at++, { condenses: { firstKept: keep }, usage: usage(step) });
    } else if (roll < 0.72 && graph.leaf !== null) {
      graph.branchFrom(pick(graph.contextNodes(graph.leaf)).id); // back into the live context
    } else if (roll < 0.76 && graph.leaf !== null) {
      await graph.loadWhole(); // an old branch point, outside the live context
      graph.branchFrom(pick([...graph.allNodes()]).id);
    } else if (roll < 0.9) {
      await store.persist(graph);
    } else {
      await store.closeSession(id);
      graph = await store.openSession(id, { whole: next() < 0.2 });
    }
  }
  await store.closeSession(id);
  return { store, id };
}

/**
 * What must not depend on how the session was read: the leaf and the model context there. (Totals are
 * compared on intact files only: a changed digit in the unread middle changes the whole read's sum,
 * and nothing can see it without reading the middle.)
 */
function sameSession(tail: LoadedSessionFile, whole: LoadedSessionFile, label: string): void {
  expect(tail.graph.leaf, label).toBe(whole.graph.leaf);
  if (whole.graph.leaf !== null) expect(tail.graph.resume(tail.graph.leaf!), label).toEqual(whole.graph.resume(whole.graph.leaf));
}

type Damage = { name: string; apply(bytes: Buffer, next: () => number): Buffer };

const lineStarts = (bytes: Buffer): number[] => {
  const starts = [0];
  for (let i = bytes.indexOf(0x0a); i >= 0 && i < bytes.length - 1; i = bytes.indexOf(0x0a, i + 1)) starts.push(i + 1);
  return starts;
};

const damages: Damage[] = [
  { name: 'a crash cut the file at some byte', apply: (bytes, next) => bytes.subarray(0, 1 + Math.floor(next() * (bytes.length - 1))) },
  {
    name: 'a crash cut the file at a line end',
    apply: (bytes, next) => {
      const starts = lineStarts(bytes);
      return bytes.subarray(0, starts[1 + Math.floor(next() * (starts.length - 1))] ?? bytes.length);
    },
  },
  {
    name: 'one byte in the middle changed',
    apply: (bytes, next) => {
      const copy = Buffer.from(bytes);
      const at = Math.floor(next() * (copy.length - 1));
      copy[at] = [0x58, 0x30, 0x22, 0x0a, 0x7d][Math.floor(next() * 5)];
      return copy;
    },
  },
  {
    name: 'one line in the middle is gone',
    apply: (bytes, next) => {
      const starts = lineStarts(bytes);
      const i = Math.floor(next() * (starts.length - 1));
      return Buffer.concat([bytes.subarray(0, starts[i]), bytes.subarray(starts[i + 1])]);
    },
  },
];

describe('resuming from the end of the file', () => {
  it('gives exactly the leaf, context and usage of a whole read, for random sessions, damaged or not', async () => {
    let tailLoads = 0;
    let checkpointed = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { store, id } = await writeRandomSession(seed);
      const path = store.pathOf(id);
      const written = readFileSync(path);

      // Intact: a file with a checkpoint always resumes from its tail.
      const tail = await store.loadSessionWithReport(id);
      const whole = await store.loadSessionWithReport(id, { whole: true });
      sameSession(tail, whole, `seed ${seed}, intact`);
      expect(tail.graph.usageTotal(), `seed ${seed}`).toEqual(whole.graph.usageTotal());
      expect(whole.report.skipped, `seed ${seed}`).toEqual([]);
      if (written.includes('{"type":"checkpoint"')) {
        checkpointed++;
        expect(tail.report.scope, `seed ${seed}: ${tail.report.fullScanReason}`).toBe('tail');
        expect(tail.graph.whole).toBe(false);
      }
      if (tail.report.scope === 'tail') tailLoads++;
      // The rest of the graph, when asked for, is the whole read's graph.
      expect(tail.graph.size, `seed ${seed}`).toBe(whole.graph.size);
      expect([...tail.graph.allNodes()].map((n) => n.id)).toEqual([...whole.graph.allNodes()].map((n) => n.id));
      const [listed] = await store.listSessions();
      expect(listed.leaf).toBe(whole.graph.leaf);
      if (listed.turns !== null) expect(listed.turns, `seed ${seed}`).toBe(whole.graph.size);

      // Damaged copies: whatever the tail read trusts, it must agree with the whole read.
      const next = random(seed * 7919);
      for (const damage of damages) {
        for (let round = 0; round < 3; round++) {
          writeFileSync(path, damage.apply(written, next));
          const label = `seed ${seed}, ${damage.name}, round ${round}`;
          sameSession(await store.loadSessionWithReport(id), await store.loadSessionWithReport(id, { whole: true }), label);
        }
      }
      writeFileSync(path, written);
    }
    expect(checkpointed).toBeGreaterThan(30);
    expect(tailLoads).toBe(checkpointed);
  });
});
