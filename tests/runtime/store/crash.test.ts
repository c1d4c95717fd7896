import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { SessionStore, SessionWriter } from '../../../src/runtime/store/index.js';
import type { SessionRecord } from '../../../src/runtime/contract/index.js';
import { assistant, nextLine, spawnFixture, tempRoot, toolCall, toolResult, user } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => ({ root, cleanup } = tempRoot()));
afterEach(() => cleanup());

/** Where each line of `bytes` ends (the offset of its newline). */
function lineEnds(bytes: Buffer): number[] {
  const ends: number[] = [];
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) ends.push(i);
  return ends;
}

/** The leaf a prefix of records names: a node record moves it to the node, a head record where it says. */
function leafOf(records: SessionRecord[]): string | null {
  const last = records.findLast((record) => record.type !== 'started');
  if (last === undefined) return null;
  return last.type === 'head' ? last.leaf : last.node.id;
}

describe('crash at any byte', () => {
  it('loads every complete record before the cut, and the next append starts on a clean line', async () => {
    // Some 700 load/lock/append rounds: on a RAM-backed directory where there is one, so that disk
    // latency (shared with everything else on the machine) does not decide how long this takes.
    const ram = tempRoot({ ramBacked: true });
    onTestFinished(ram.cleanup);
    const root = ram.root;
    const store = new SessionStore(root);
    const graph = await SessionWriter.open(store, 's');
    graph.append(user('Résumé the notes 📝, please'), 1);
    graph.append(toolCall('call-1', 'notes.search', { query: 'naïve', tags: ['a', 'b'] }), 2);
    await graph.persist();
    graph.append(toolResult('call-1', '« 2 » 🎉'), 3);
    graph.append(assistant('Done.'), 4);
    await graph.persist();
    await graph.close();

    const path = join(root, 's.jsonl');
    const full = readFileSync(path);
    const ends = lineEnds(full);
    const records: SessionRecord[] = full
      .toString('utf8')
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line));
    expect(records.slice(-3).map((r) => r.type)).toEqual(['node', 'node', 'head']);
    const firstCut = ends[ends.length - 4] + 1; // start of the third record from the end

    for (let cut = firstCut; cut <= full.length; cut++) {
      writeFileSync(path, full.subarray(0, cut));
      // A line is complete when everything up to its newline survived (the newline itself may not have).
      const complete = records.filter((_, i) => ends[i] <= cut);
      const atLineStart = cut === 0 || full[cut - 1] === 0x0a;
      const torn = !atLineStart && !ends.includes(cut);

      const { graph: loaded, report } = await store.loadSessionWithReport('s');
      const nodeIds = complete.flatMap((r) => (r.type === 'node' ? [r.node.id] : []));
      expect(loaded.size, `cut ${cut}`).toBe(nodeIds.length);
      for (const id of nodeIds) expect(loaded.has(id)).toBe(true);
      expect(loaded.leaf).toBe(leafOf(complete));
      expect(report.truncatedTail).toBe(torn);
      expect(report.skipped).toHaveLength(torn ? 1 : 0);
      expect(report.orphans).toEqual([]);

      const writer = await SessionWriter.open(store, 's');
      const added = writer.append(user(`after cut ${cut}`), 100);
      await writer.persist();
      await writer.close();
      const after = readFileSync(path);
      expect(after.subarray(0, cut).equals(full.subarray(0, cut))).toBe(true); // nothing before the cut was rewritten
      expect(after[cut] === 0x0a).toBe(!atLineStart); // a torn or unterminated line is closed off first
      const { graph: reloaded, report: again } = await store.loadSessionWithReport('s');
      expect(reloaded.node(added.id)?.parent).toBe(leafOf(complete));
      expect(reloaded.leaf).toBe(added.id);
      expect(reloaded.size).toBe(nodeIds.length + 1);
      // The torn fragment is now a line of its own, still reported; nothing else is.
      expect(again.skipped.map((s) => s.reason.startsWith('not valid JSON'))).toEqual(torn ? [true] : []);
      expect(again.truncatedTail).toBe(false);
    }
  });

  it('keeps every persisted record intact when a writer is killed with SIGKILL mid-loop', async () => {
    const child = spawnFixture('write-loop.ts', [root, 's']);
    const persisted: string[] = [];
    while (persisted.length < 40) persisted.push((await nextLine(child)).split(' ')[2]);
    child.process.kill('SIGKILL');
    await child.exited;
    // Lines printed after the 40th were also persisted before they were printed.
    for (let next = await child.lines.next(); !next.done; next = await child.lines.next()) persisted.push(next.value.split(' ')[2]);

    const store = new SessionStore(root);
    const { graph, report } = await store.loadSessionWithReport('s');
    const lastAcknowledged = persisted.at(-1)!;
    expect(graph.has(lastAcknowledged)).toBe(true);
    expect(graph.pathTo(lastAcknowledged)).toHaveLength(persisted.length * 3);
    expect(report.orphans).toEqual([]);
    expect(report.skipped.length).toBeLessThanOrEqual(1); // at most the line the kill cut short
    expect(report.skipped.length).toBe(report.truncatedTail ? 1 : 0);

    // The dead writer's lock is stale: a new writer takes over and appends on a clean line.
    const writer = await SessionWriter.open(store, 's');
    const leafBefore = writer.graph.leaf;
    const added = writer.append(user('after the crash'), Date.now());
    await writer.close();
    // Read whole: a resume from the end (the new writer wrote a checkpoint) does not read the fragment.
    const reloaded = await store.loadSessionWithReport('s', { whole: true });
    expect(reloaded.graph.node(added.id)!.parent).toBe(leafBefore);
    expect(reloaded.report.skipped.length).toBe(report.skipped.length);
    expect(reloaded.report.truncatedTail).toBe(false);
  });
});

describe('a corrupt line in the middle', () => {
  async function sessionOfFive() {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    const nodes = [user('1'), assistant('2'), user('3'), assistant('4'), user('5')].map((turn, i) => writer.append(turn, i));
    await writer.close();
    const path = join(root, 's.jsonl');
    return { store, nodes, path, lines: readFileSync(path, 'utf8').split('\n') };
  }

  it('keeps nodes with intact ancestry, reports orphans and the lost leaf, and rewrites nothing', async () => {
    const { store, nodes, path, lines } = await sessionOfFive();
    lines[2] = lines[2].slice(0, 60) + '\u0000\u0000\u0000\u0000' + lines[2].slice(64); // node 3: a zeroed stretch
    writeFileSync(path, lines.join('\n'));
    const size = statSync(path).size;

    const { graph, report } = await store.loadSessionWithReport('s');
    expect(graph.size).toBe(2);
    expect(graph.pathTo(nodes[1].id)).toEqual([user('1'), assistant('2')]);
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0].line).toBe(3);
    expect(report.skipped[0].reason).toMatch(/^not valid JSON/);
    expect(report.orphans).toEqual([
      { id: nodes[3].id, parent: nodes[2].id, line: 4 },
      { id: nodes[4].id, parent: nodes[3].id, line: 5 },
    ]);
    // The head named node 5, an orphan: the leaf falls back to the last intact position, visibly.
    expect(report.leafFallback).toEqual({ recorded: nodes[4].id, restored: nodes[1].id });
    expect(graph.leaf).toBe(nodes[1].id);
    expect(statSync(path).size).toBe(size);

    // Opening for writing (and closing) changes nothing on disk either; only a deliberate change appends.
    const writer = await SessionWriter.open(store, 's');
    await writer.close();
    expect(statSync(path).size).toBe(size);
    expect(writer.graph.leaf).toBe(nodes[1].id);
  });

  it('with verify, skips a node whose content no longer matches its id, and orphans its descendants', async () => {
    const { store, nodes, path, lines } = await sessionOfFive();
    lines[1] = lines[1].replace('"text":"2"', '"text":"two"');
    writeFileSync(path, lines.join('\n'));
    const trusting = await store.loadSessionWithReport('s');
    expect(trusting.graph.node(nodes[1].id)!.turn).toEqual(assistant('two'));

    const { graph, report } = await new SessionStore(root, [], { verify: true }).loadSessionWithReport('s');
    expect(report.skipped).toEqual([{ line: 2, reason: `node ${nodes[1].id} does not match the hash of its content` }]);
    expect(report.orphans.map((o) => o.id)).toEqual([nodes[2].id, nodes[3].id, nodes[4].id]);
    expect(graph.size).toBe(1);
    expect(graph.leaf).toBe(nodes[0].id);
  });
});
