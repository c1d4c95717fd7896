// Checkpoints: resuming from the end of the file, falling back to a whole read when anything is off,
// and graphs that hold only the live path.
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GraphNotLoadedError, SessionGraph, SessionIntegrityError, SessionStore, SessionWriter } from '../../../src/runtime/store/index.js';
import type { Migrator, SessionNode, SessionRecord, Turn } from '../../../src/runtime/contract/index.js';
import { assistant, tempRoot, toolCall, toolResult, user } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => ({ root, cleanup } = tempRoot({ ramBacked: true })));
afterEach(() => cleanup());

const summary = (n: number): Turn => ({ role: 'user', blocks: [{ kind: 'text', text: `[condensed earlier context] up to turn ${n}` }] });
const usage = { inputTokens: 100, outputTokens: 20, cacheWriteTokens: 0, cacheReadTokens: 50 };
const text = (turn: Turn) => (turn.blocks[0] as { text: string }).text;
const nodeRecords = (nodes: readonly SessionNode[]): SessionRecord[] => nodes.map((node) => ({ type: 'node', node }));

/**
 * A session the way an agent writes one: a persist every 4 turns, a condensation every `compactEvery`
 * turns keeping 8, and `after` turns since the last one. Returns the store and what was appended.
 */
async function longSession(options: { turns: number; compactEvery: number; after: number; store?: SessionStore }) {
  const store = options.store ?? new SessionStore(root);
  const writer = await SessionWriter.open(store, 's');
  const graph = writer.graph;
  let at = 1;
  const appendTurns = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const n = at;
      if (n % 2 === 1) writer.append(user(`question ${n} ${'words '.repeat(40)}`), at++);
      else writer.append(assistant(`answer ${n} ${'words '.repeat(40)}`), at++, { usage, model: 'claude-test' });
      if (at % 4 === 0) await writer.persist();
    }
  };
  const condense = () => {
    const context = graph.contextNodes(graph.leaf!);
    writer.append(summary(at), at++, { condenses: { firstKept: context[context.length - 8].id } });
  };
  while (at < options.turns) {
    await appendTurns(options.compactEvery);
    condense();
  }
  await appendTurns(options.after);
  const leaf = graph.leaf!;
  const context = graph.contextTo(leaf);
  await writer.close();
  return { store, leaf, context, path: store.pathOf('s') };
}

/** A migrator that changes nothing and counts the records it sees: how many lines a read parsed. */
function countingMigrator(): Migrator & { seen: number } {
  const migrator = {
    id: 'count',
    seen: 0,
    upgrade(raw: unknown) {
      migrator.seen++;
      return raw;
    },
  };
  return migrator;
}

describe('resuming from the last checkpoint', () => {
  it('reads the live context and what follows the last checkpoint, not the whole file', async () => {
    const { leaf, context, path } = await longSession({ turns: 3_000, compactEvery: 500, after: 100 });
    const size = readFileSync(path).length;
    const counter = countingMigrator();
    const store = new SessionStore(root, [counter]);

    const { graph, report } = await store.loadSessionWithReport('s');
    expect(report).toMatchObject({ scope: 'tail', fullScanReason: null, skipped: [], orphans: [], leafFallback: null });
    expect(graph.leaf).toBe(leaf);
    expect(graph.whole).toBe(false);
    expect(graph.resume(leaf)).toEqual(context);
    expect(report.bytes).toBeLessThan(size / 10);
    expect(counter.seen).toBeLessThan(400); // lines parsed: ~110 of context, a checkpoint's worth after it
    const whole = await store.loadSession('s', { whole: true });
    expect(graph.usageTotal()).toEqual(whole.usageTotal());
    expect(graph.whole).toBe(false); // the total came from the checkpoint

    // Asked for more, it reads the rest, and keeps the turns it handed out.
    const turns = graph.contextTo(leaf);
    await graph.loadWhole();
    expect(graph.whole).toBe(true);
    expect(graph.size).toBe(whole.size);
    expect(graph.pathTo(leaf)).toEqual(whole.pathTo(leaf));
    expect(graph.contextTo(leaf).at(-1)).toBe(turns.at(-1));
  });

  it('loads a file written before checkpoints whole, and the first persist adds one', async () => {
    const { path, leaf, context } = await longSession({ turns: 1_200, compactEvery: 400, after: 50 });
    // The same history without its checkpoints, as an older version wrote it.
    const old = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => !line.startsWith('{"type":"checkpoint"'))
      .join('\n');
    writeFileSync(path, old);
    const store = new SessionStore(root);
    const first = await store.loadSessionWithReport('s');
    expect(first.report.scope).toBe('file');
    expect(first.report.fullScanReason).toMatch(/checkpoint/);
    expect(first.graph.resume(leaf)).toEqual(context);

    const writer = await SessionWriter.open(store, 's');
    const added = writer.append(user('one more'), 99_999);
    await writer.close();
    const next = await store.loadSessionWithReport('s');
    expect(next.report.scope).toBe('tail');
    expect(next.graph.resume(added.id)).toEqual([...context, user('one more')]);
  });

  it('reads a file that ends in a torn line whole and reports it; once a writer closed it off, the end is read again', async () => {
    const { path, leaf } = await longSession({ turns: 800, compactEvery: 300, after: 40 });
    const intact = readFileSync(path);
    writeFileSync(path, Buffer.concat([intact, Buffer.from('{"type":"node","node":{"id":"abc')]));
    const store = new SessionStore(root);
    const torn = await store.loadSessionWithReport('s');
    expect(torn.report.scope).toBe('file');
    expect(torn.report.fullScanReason).toMatch(/unterminated/);
    expect(torn.report.truncatedTail).toBe(true);
    expect(torn.graph.leaf).toBe(leaf);

    const writer = await SessionWriter.open(store, 's');
    writer.append(user('after the crash'), 77_777);
    await writer.close();
    expect((await store.loadSessionWithReport('s')).report.scope).toBe('tail');
    const whole = await store.loadSessionWithReport('s', { whole: true });
    expect(whole.report.skipped.map((entry) => entry.reason)).toEqual([expect.stringMatching(/^not valid JSON/)]);
  });

  it('writes a checkpoint with the persist that moves the leaf back to old history, so the next resume still reads the end', async () => {
    const { store, path } = await longSession({ turns: 1_500, compactEvery: 500, after: 30 });
    const writer = await SessionWriter.open(store, 's');
    await writer.graph.loadWhole();
    const old = [...writer.graph.allNodes()][100]; // long condensed away
    writer.graph.branchFrom(old.id);
    const before = readFileSync(path).length;
    await writer.persist();
    const written = readFileSync(path, 'utf8').slice(before);
    expect(
      written
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).type),
    ).toEqual(['head', 'checkpoint']);
    const fork = writer.append(assistant('a new answer to an old question'), 88_888);
    await writer.close();

    const { graph, report } = await store.loadSessionWithReport('s');
    expect(report.scope).toBe('tail');
    expect(graph.leaf).toBe(fork.id);
    const whole = await store.loadSession('s', { whole: true });
    expect(graph.resume(fork.id)).toEqual(whole.resume(fork.id));

    // A writer that died between the head and its checkpoint: the end does not cover the leaf any more.
    const lines = readFileSync(path, 'utf8').split('\n');
    const cut = lines.findIndex((line) => line.includes(`"leaf":"${old.id}"`) && line.startsWith('{"type":"head"'));
    writeFileSync(path, `${lines.slice(0, cut + 1).join('\n')}\n`);
    const crashed = await store.loadSessionWithReport('s');
    expect(crashed.report.scope).toBe('file');
    expect(crashed.report.fullScanReason).toMatch(/needs node/);
    expect(crashed.graph.leaf).toBe(old.id);
  });

  it('resumes from the end the guardrail trip standing at the leaf: before the last checkpoint, after it, or cleared since', async () => {
    const { store, path } = await longSession({ turns: 1_500, compactEvery: 500, after: 30 });
    const tripped = { guardrail: 'deny', stage: 'answer' as const, message: 'no', runId: 'r1', at: 7 };
    const resumed = async () => {
      const { graph, report } = await store.loadSessionWithReport('s');
      const whole = await store.loadSession('s', { whole: true });
      expect(report.scope, report.fullScanReason ?? '').toBe('tail');
      expect([graph.leaf, graph.tripped]).toEqual([whole.leaf, whole.tripped]);
      return graph;
    };

    // Back to old history: the head carrying the trip is followed by a checkpoint.
    const writer = await SessionWriter.open(store, 's');
    await writer.graph.loadWhole();
    const old = [...writer.graph.allNodes()][100];
    writer.trip(old.id, tripped);
    await writer.close();
    const tail = readFileSync(path, 'utf8').trimEnd().split('\n').slice(-2);
    expect(tail.map((line) => JSON.parse(line).type)).toEqual(['head', 'checkpoint']);
    expect((await resumed()).tripped).toEqual(tripped);
    // Starts after it, and another checkpoint after those, still leave the trip standing.
    const again = new SessionStore(root, [], { checkpointBytes: 1 });
    const held = await SessionWriter.open(again, 's');
    held.markStarted(['call-x']);
    await held.close();
    expect(
      readFileSync(path, 'utf8')
        .trimEnd()
        .split('\n')
        .slice(-4)
        .map((line) => JSON.parse(line).type),
    ).toEqual(['head', 'checkpoint', 'started', 'checkpoint']);
    expect((await resumed()).tripped).toEqual(tripped);

    // Within the records after the last checkpoint: the trip stands, until a node moves the leaf on.
    const next = await SessionWriter.open(store, 's');
    const answer = next.append(assistant('an answer after the trip'), 90_000);
    next.trip(answer.id, { ...tripped, at: 8 });
    await next.close();
    expect((await resumed()).tripped).toEqual({ ...tripped, at: 8 });
    const last = await SessionWriter.open(store, 's');
    last.append(user('a prompt after the trip'), 90_001);
    await last.close();
    expect((await resumed()).tripped).toBeUndefined();
  });

  it('reads the whole file when the last checkpoint is damaged or sits where it says it does not', async () => {
    const { path, leaf, context } = await longSession({ turns: 800, compactEvery: 300, after: 40 });
    const intact = readFileSync(path, 'utf8');
    const at = intact.lastIndexOf('"nodes":');
    writeFileSync(path, `${intact.slice(0, at + 8)}${intact[at + 8] === '9' ? '8' : '9'}${intact.slice(at + 9)}`);
    const store = new SessionStore(root);
    const damaged = await store.loadSessionWithReport('s');
    expect(damaged.report.fullScanReason).toMatch(/checksum/);
    expect(damaged.report.skipped.map((entry) => entry.reason)).toEqual([expect.stringMatching(/checksum/)]);
    expect(damaged.graph.resume(leaf)).toEqual(context);

    // One line gone from the start: every offset after it moved.
    writeFileSync(path, intact.slice(intact.indexOf('\n') + 1));
    const shifted = await store.loadSessionWithReport('s');
    expect(shifted.report.fullScanReason).toMatch(/sits at byte/);
  });

  it('agrees with a whole read after a crash at any byte of the last records, checkpoint included', async () => {
    const store = new SessionStore(root, [], { checkpointBytes: 1 }); // a checkpoint with every persist
    const { path } = await longSession({ turns: 60, compactEvery: 20, after: 6, store });
    const intact = readFileSync(path);
    for (let cut = intact.length - 1_500; cut < intact.length; cut++) {
      truncateSync(path, cut);
      const tail = await store.loadSessionWithReport('s');
      const whole = await store.loadSessionWithReport('s', { whole: true });
      expect(tail.graph.leaf, `cut ${cut}`).toBe(whole.graph.leaf);
      expect(tail.graph.resume(tail.graph.leaf!), `cut ${cut}`).toEqual(whole.graph.resume(whole.graph.leaf!));
      expect(whole.report.orphans).toEqual([]);
      writeFileSync(path, intact);
    }
  });

  it('resumes from the end when started records come just before the last checkpoint, with their counts', async () => {
    const store = new SessionStore(root, [], { checkpointBytes: 1 }); // a checkpoint with every persist
    const { path } = await longSession({ turns: 40, compactEvery: 30, after: 3, store });
    const writer = await SessionWriter.open(store, 's');
    writer.append(toolCall('call-1', 'deploy', { to: 'prod' }), 100, { usage, model: 'claude-test' });
    await writer.persist(); // the reply is durable before its call starts
    writer.markStarted(['call-1']);
    await writer.persist(); // [started, checkpoint]: the leaf stays on the reply
    writer.markStarted(['call-1']); // run again after a crash: closing writes [started, checkpoint] again
    await writer.close();
    const lines = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(-4)
      .map((line) => JSON.parse(line).type);
    expect(lines).toEqual(['started', 'checkpoint', 'started', 'checkpoint']);

    const tail = await store.loadSessionWithReport('s');
    const whole = await store.loadSessionWithReport('s', { whole: true });
    expect(tail.report.scope, tail.report.fullScanReason ?? '').toBe('tail');
    expect(tail.graph.startsOf('call-1')).toBe(2);
    expect(whole.graph.startsOf('call-1')).toBe(2);
    // The count the checkpoint carries, once the start after it is a result away.
    const reopened = await SessionWriter.open(store, 's');
    reopened.append(toolResult('call-1', 'deployed'), 101);
    await reopened.close();
    const later = await store.loadSessionWithReport('s');
    expect(readFileSync(path, 'utf8').trimEnd().split('\n').at(-1)).toMatch(/^\{"type":"checkpoint",.*"started":\[\["call-1",2\]\]/);
    expect(later.report.scope).toBe('tail');
    expect(later.graph.startsOf('call-1')).toBe(2);
  });

  it('stops checkpointing when a failed write may have landed in part, and the next open starts again', async () => {
    const store = new SessionStore(root, [], { checkpointBytes: 1 });
    const { path } = await longSession({ turns: 30, compactEvery: 20, after: 3, store });
    const writer = await SessionWriter.open(store, 's');
    writer.append(toolCall('call-2', 'deploy', {}), 200);
    writer.markStarted(['call-2']);
    await writer.persist();
    // The next write lands half its bytes, then fails (a full disk): the started record may be in the file.
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<{ bytesWritten: number }> };
    await probe.close();
    const write = proto.write;
    const failing = vi.spyOn(proto, 'write').mockImplementationOnce(async function (this: unknown, bytes: unknown) {
      const buffer = bytes as Buffer;
      await write.call(this, buffer.subarray(0, Math.floor(buffer.length / 2)));
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    writer.markStarted(['call-2']);
    writer.append(toolResult('call-2', 'done'), 201);
    await expect(writer.persist()).rejects.toThrow(/persisting/);
    failing.mockRestore();
    const before = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"type":"checkpoint"')).length;
    writer.append(assistant('after the failure'), 202);
    await writer.persist();
    await writer.graph.loadWhole(); // the writer learns where every node sits again: still no checkpoint
    writer.append(user('and then'), 203);
    await writer.persist();
    await writer.close();
    expect(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{"type":"checkpoint"')).length,
    ).toBe(before);

    const tail = await store.loadSessionWithReport('s');
    const whole = await store.loadSessionWithReport('s', { whole: true });
    expect(tail.report.fullScanReason).toMatch(/damaged/); // the half-written line, after the last checkpoint
    expect(tail.graph.startsOf('call-2')).toBe(whole.graph.startsOf('call-2'));
    expect(tail.graph.resume(tail.graph.leaf!)).toEqual(whole.graph.resume(whole.graph.leaf!));
    // A new writer knows the file again and checkpoints from its first persist.
    const again = await SessionWriter.open(store, 's');
    again.append(user('and on'), 204);
    await again.close();
    expect((await store.loadSessionWithReport('s')).report.scope).toBe('tail');
  });

  it('checkpoints about once per checkpointBytes while the leaf only grows', async () => {
    const { path } = await longSession({ turns: 2_000, compactEvery: 700, after: 10 });
    const file = readFileSync(path, 'utf8');
    const checkpoints = file.split('\n').filter((line) => line.startsWith('{"type":"checkpoint"')).length;
    const expected = file.length / (64 * 1024);
    expect(checkpoints).toBeGreaterThanOrEqual(Math.floor(expected));
    expect(checkpoints).toBeLessThanOrEqual(Math.ceil(expected) + 1);
  });
});

describe('listing', () => {
  it('gives the first prompt and the turn count from the two ends of each file', async () => {
    const { path } = await longSession({ turns: 3_000, compactEvery: 500, after: 30 });
    expect(readFileSync(path).length).toBeGreaterThan(1024 * 1024); // more than a listing reads back
    const small = new SessionStore(root);
    const tiny = await SessionWriter.open(small, 'tiny');
    tiny.append(user('  what   is\nup?  '), 1);
    tiny.append(assistant('not much'), 2);
    await tiny.close();
    // A large file written before checkpoints: its turns cannot be counted without reading it all.
    writeFileSync(
      join(root, 'old.jsonl'),
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => !line.startsWith('{"type":"checkpoint"'))
        .join('\n'),
    );
    const counter = countingMigrator();
    const listed = new Map((await new SessionStore(root, [counter]).listSessions()).map((entry) => [entry.id, entry]));
    const whole = await small.loadSession('s', { whole: true });
    expect(listed.get('s')).toMatchObject({ leaf: whole.leaf, turns: whole.size, title: expect.stringMatching(/^question 1 words words/) });
    expect(listed.get('tiny')).toMatchObject({ turns: 2, title: 'what is up?' });
    expect(listed.get('old')).toMatchObject({ leaf: whole.leaf, turns: null });
    expect(counter.seen).toBeLessThan(300);
  });
});

describe('SessionGraph.fromLivePath', () => {
  /** A whole graph, and the pieces a store would keep of it. */
  function stored() {
    const graph = new SessionGraph('g');
    const a = graph.append(user('a'), 1);
    const b = graph.append(assistant('b'), 2, { usage, model: 'claude-test' });
    graph.branchFrom(a.id);
    graph.append(assistant('b2'), 3);
    graph.branchFrom(b.id);
    const c = graph.append(user('c'), 4);
    const s = graph.append(summary(4), 5, { condenses: { firstKept: c.id } });
    const d = graph.append(assistant('d'), 6, { usage, model: 'claude-test' });
    const all = [...graph.allNodes()];
    return { graph, all, a, d, live: graph.contextNodes(d.id), s };
  }

  it('resumes from the live path alone, and loads the rest only when asked, keeping what it holds', async () => {
    const { graph: original, all, a, d, live } = stored();
    expect(live.map((node) => text(node.turn))).toEqual(['c', '[condensed earlier context] up to turn 4', 'd']);
    let loads = 0;
    const rest = async () => (loads++, nodeRecords(all));
    const graph = SessionGraph.fromLivePath('g', nodeRecords(live), { leaf: d.id, rest, usageTotal: original.usageTotal() });
    expect(graph.resume(d.id)).toEqual(original.resume(d.id));
    expect(graph.usageTotal()).toEqual(original.usageTotal());
    const e = graph.append(user('e'), 7, { usage, model: 'claude-test' });
    expect(graph.usageTotal().inputTokens).toBe(original.usageTotal().inputTokens + usage.inputTokens);

    // No synchronous way to the rest: the methods that need it say so.
    expect(() => graph.size).toThrow(GraphNotLoadedError);
    expect(() => graph.children(null)).toThrow(/await graph.loadWhole\(\)/);
    expect(() => graph.node(a.id)).toThrow(GraphNotLoadedError);
    const heldTurn = graph.node(d.id)!.turn;
    await graph.loadWhole();
    expect(loads).toBe(1);
    expect(graph.whole).toBe(true);
    expect(graph.size).toBe(all.length + 1);
    expect(graph.children(a.id).map((node) => text(node.turn))).toEqual(['b', 'b2']);
    expect(graph.node(d.id)!.turn).toBe(heldTurn);
    expect(graph.leaf).toBe(e.id);
    expect(graph.node(e.id)).toBe(e);
  });

  it('counts starts for the calls it holds, and loads the whole session to count any other call', () => {
    const graph = new SessionGraph('g');
    graph.append(toolCall('old', 'shell', {}), 1);
    graph.markStarted(['old', 'old']);
    graph.append(toolResult('old', 'ok'), 2);
    const s = graph.append(summary(2), 3, { condenses: { firstKept: null } });
    const c = graph.append(toolCall('new', 'shell', {}), 4);
    graph.markStarted(['new']);
    const whole: SessionRecord[] = [
      ...nodeRecords([...graph.allNodes()]),
      { type: 'started', callIds: ['old', 'old'] },
      { type: 'started', callIds: ['new'] },
    ];
    let loads = 0;
    // A count for a call it does not hold is not trusted.
    const given: SessionRecord[] = [...nodeRecords([s, c]), { type: 'started', callIds: ['new', 'old'] }];
    const live = SessionGraph.fromLivePath('g', given, {
      leaf: c.id,
      rest: async () => whole,
      restSync: () => (loads++, whole),
    });
    expect(live.startsOf('new')).toBe(1);
    expect(loads).toBe(0);
    live.markStarted(['new']); // not stored yet: kept over the load
    expect(live.startsOf('old')).toBe(2);
    expect(loads).toBe(1);
    expect(live.whole).toBe(true);
    expect(live.startsOf('new')).toBe(2);
  });

  it('loads the rest synchronously when its source can, for the methods that cannot wait', () => {
    const { all, a, d, live } = stored();
    const graph = SessionGraph.fromLivePath('g', nodeRecords(live), {
      leaf: d.id,
      rest: async () => nodeRecords(all),
      restSync: () => nodeRecords(all),
    });
    expect(graph.whole).toBe(false);
    expect(graph.nodesTo(d.id)[0].id).toBe(a.id);
    expect(graph.whole).toBe(true);
  });

  it('knows the nodes it holds by id, in whatever order they came and however often: the first record of each wins', () => {
    const { graph: original, all, d, live, s } = stored();
    let loads = 0;
    const rest = async () => nodeRecords(all);
    const restSync = () => (loads++, nodeRecords(all));
    const copy = structuredClone(d);
    // In order (one line of descent, as stores give it), and shuffled with the leaf given twice.
    for (const given of [live, [d, ...live.slice(0, 2), d, copy]]) {
      const graph = SessionGraph.fromLivePath('g', nodeRecords(given), { leaf: d.id, rest, restSync });
      expect(graph.resume(d.id)).toEqual(original.resume(d.id));
      expect(graph.node(d.id)).toBe(d);
      expect(graph.node(s.id)).toBe(s);
      // The same turn appended again where it stands is the node held, not a new one.
      graph.branchFrom(s.id);
      expect(graph.add(d.turn, d.at)).toEqual({ node: d, added: false });
      expect(graph.leaf).toBe(d.id);
    }
    expect(loads).toBe(0);
  });

  it('refuses nodes that do not hold the context at the leaf', () => {
    const { all, d, live, s } = stored();
    const rest = async () => nodeRecords(all);
    expect(() => SessionGraph.fromLivePath('g', nodeRecords(live.slice(1)), { leaf: d.id, rest })).toThrow(SessionIntegrityError);
    expect(() => SessionGraph.fromLivePath('g', nodeRecords(live.filter((node) => node !== s)), { leaf: d.id, rest })).toThrow(/missing/);
  });
});
