// Resuming from the end of the file (checkpoints) must give exactly what reading the whole file gives.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore, SessionWriter, type LoadedSessionFile } from '../../../src/runtime/store/index.js';
import type { ModelUsage, SessionNode, Turn } from '../../../src/runtime/contract/index.js';
import { assistant, tempRoot, toolCall, toolResult, user } from './helpers.js';

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

const callsOf = (node: SessionNode): string[] => node.turn.blocks.flatMap((block) => (block.kind === 'tool_call' ? [block.id] : []));

/**
 * Writes one random session the way agents do: turns (tool calls and results among them) appended and
 * persisted in small batches, calls recorded as started (once, twice, on old branches too), now and
 * then a condensation, a branch back into the live context or to an old node, and the session closed
 * and reopened (resumed from the tail, or read whole) by one of two stores with different checkpoint
 * spacing. With `foreign`, a writer that writes no checkpoints (an older version) appends records now
 * and then while neither store holds the session, once a line cut short by its crash.
 * Returns the store and the session id.
 */
async function writeRandomSession(seed: number, foreign: boolean): Promise<{ store: SessionStore; id: string }> {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const stores = [0, 1].map(() => new SessionStore(root, [], { checkpointBytes: 300 + Math.floor(next() * 4000) }));
  let store = stores[0];
  const id = `s${seed}`;
  let writer = await SessionWriter.open(store, id);
  let at = 1;
  let tornOnce = false;
  const steps = 40 + Math.floor(next() * 160);
  for (let step = 0; step < steps; step++) {
    const roll = next();
    const text = `${step} ${'lorem ipsum dolor '.repeat(Math.floor(next() * 20))}`;
    if (roll < 0.55) {
      const kind = next();
      if (kind < 0.35) writer.append(user(text), at++);
      else if (kind < 0.65) writer.append(assistant(text), at++, { usage: usage(step), model: 'claude-test' });
      else if (kind < 0.85)
        writer.append(toolCall(`call-${seed}-${step}`, 'shell', { text }), at++, { usage: usage(step), model: 'claude-test' });
      else writer.append(toolResult(`call-${seed}-${step - 1}`, text), at++);
    } else if (roll < 0.6 && writer.graph.leaf !== null) {
      // The calls of the reply at the leaf start (once, or again after a crash), or a call elsewhere does.
      const calls = callsOf(writer.graph.node(writer.graph.leaf)!);
      if (calls.length > 0) writer.markStarted(next() < 0.7 ? calls : [...calls, ...calls]);
      else if (next() < 0.3) {
        await writer.graph.loadWhole();
        const called = [...writer.graph.allNodes()].flatMap(callsOf);
        if (called.length > 0) writer.markStarted([pick(called)]);
      }
    } else if (roll < 0.62 && foreign) {
      const called = writer.graph.leaf === null ? [] : writer.graph.contextNodes(writer.graph.leaf).flatMap(callsOf);
      await writer.close();
      if (!tornOnce && next() < 0.3) {
        appendFileSync(store.pathOf(id), '{"type":"started","callIds":["cut sh');
        tornOnce = true;
      } else if (called.length > 0) {
        appendFileSync(store.pathOf(id), `${JSON.stringify({ type: 'started', callIds: [pick(called)] })}\n`);
      }
      writer = await SessionWriter.open(store, id);
    } else if (roll < 0.67 && writer.graph.leaf !== null) {
      const context = writer.graph.contextNodes(writer.graph.leaf);
      const keep = next() < 0.15 ? null : pick(context).id;
      writer.append(summary(text), at++, { condenses: { firstKept: keep }, usage: usage(step) });
    } else if (roll < 0.72 && writer.graph.leaf !== null) {
      writer.graph.branchFrom(pick(writer.graph.contextNodes(writer.graph.leaf)).id); // back into the live context
    } else if (roll < 0.76 && writer.graph.leaf !== null) {
      await writer.graph.loadWhole(); // an old branch point, outside the live context
      writer.graph.branchFrom(pick([...writer.graph.allNodes()]).id);
    } else if (roll < 0.9) {
      await writer.persist();
    } else {
      await writer.close();
      store = pick(stores);
      writer = await SessionWriter.open(store, id, { whole: next() < 0.2 });
    }
  }
  await writer.close();
  return { store, id };
}

/**
 * What must not depend on how the session was read: the leaf and the model context there. (Totals are
 * compared on intact files only: a changed digit in the unread middle changes the whole read's sum,
 * and nothing can see it without reading the middle.)
 */
function sameSession(tail: LoadedSessionFile, whole: LoadedSessionFile, label: string): void {
  expect(tail.graph.leaf, label).toBe(whole.graph.leaf);
  if (whole.graph.leaf === null) return;
  expect(tail.graph.resume(tail.graph.leaf!), label).toEqual(whole.graph.resume(whole.graph.leaf));
  // What the conductor asks of an interrupted run: how often each call of the context started.
  for (const call of whole.graph.contextNodes(whole.graph.leaf).flatMap(callsOf)) {
    expect(tail.graph.startsOf(call), `${label}, call ${call}`).toBe(whole.graph.startsOf(call));
  }
}

/** The report's findings (not how much was read) are the whole read's: a tail read trusts only a file with nothing to report. */
function sameFindings(tail: LoadedSessionFile, whole: LoadedSessionFile, label: string): void {
  const findings = ({ report }: LoadedSessionFile) => ({
    skipped: report.skipped,
    orphans: report.orphans,
    truncatedTail: report.truncatedTail,
    leafFallback: report.leafFallback,
  });
  expect(findings(tail), label).toEqual(findings(whole));
  if (tail.report.scope === 'file')
    expect({ ...tail.report, fullScanReason: null, bytes: 0 }, label).toEqual({ ...whole.report, bytes: 0 });
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
    let withStarts = 0;
    for (let seed = 1; seed <= 48; seed++) {
      const foreign = seed % 4 === 0;
      const { store, id } = await writeRandomSession(seed, foreign);
      const path = store.pathOf(id);
      const written = readFileSync(path);

      // As written: a file a checkpointing writer last wrote resumes from its tail.
      const tail = await store.loadSessionWithReport(id);
      const whole = await store.loadSessionWithReport(id, { whole: true });
      sameSession(tail, whole, `seed ${seed}, intact`);
      expect(tail.graph.usageTotal(), `seed ${seed}`).toEqual(whole.graph.usageTotal());
      if (!foreign) {
        sameFindings(tail, whole, `seed ${seed}, intact`);
        expect(whole.report.skipped, `seed ${seed}`).toEqual([]);
        if (written.includes('{"type":"checkpoint"')) {
          checkpointed++;
          expect(tail.report.scope, `seed ${seed}: ${tail.report.fullScanReason}`).toBe('tail');
          expect(tail.graph.whole).toBe(false);
          if (written.includes('{"type":"started"')) withStarts++;
        }
        if (tail.report.scope === 'tail') tailLoads++;
      }
      // The rest of the graph, when asked for, is the whole read's graph, start counts included.
      expect(tail.graph.size, `seed ${seed}`).toBe(whole.graph.size);
      expect([...tail.graph.allNodes()].map((n) => n.id)).toEqual([...whole.graph.allNodes()].map((n) => n.id));
      for (const call of [...whole.graph.allNodes()].flatMap(callsOf))
        expect(tail.graph.startsOf(call), `seed ${seed}, ${call}`).toBe(whole.graph.startsOf(call));
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
    expect(withStarts).toBeGreaterThan(20);
    expect(tailLoads).toBe(checkpointed);
  });
});
