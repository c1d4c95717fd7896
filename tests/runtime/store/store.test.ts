import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  InvalidSessionIdError,
  SessionGraph,
  SessionIoError,
  SessionNotOpenError,
  SessionStore,
  hashNode,
} from '../../../src/runtime/store/index.js';
import type { Migrator } from '../../../src/runtime/contract/index.js';
import type { SessionStoreLike } from '../../../src/runtime/store/index.js';
import { assistant, tempRoot, toolCall, toolResult, user } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => ({ root, cleanup } = tempRoot()));
afterEach(() => cleanup());

const linesOf = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));

describe('SessionStore', () => {
  it('persists appended turns as node and head lines and loads the same graph back', async () => {
    const store: SessionStoreLike = new SessionStore(join(root, 'deep', 'sessions'));
    const graph = await store.openSession('chat-1');
    const a = graph.append(user('list my notes'), 1);
    const b = graph.append(toolCall('c1', 'notes.list', { limit: 5 }), 2);
    const c = graph.append(toolResult('c1', '3 notes'), 3);
    await store.persist(graph);

    const file = join(root, 'deep', 'sessions', 'chat-1.jsonl');
    expect(linesOf(file)).toEqual([
      { type: 'node', node: a },
      { type: 'node', node: b },
      { type: 'node', node: c },
      { type: 'head', leaf: c.id },
    ]);

    const loaded = await new SessionStore(join(root, 'deep', 'sessions')).loadSession('chat-1');
    expect(loaded.leaf).toBe(c.id);
    expect(loaded.pathTo(c.id)).toEqual([user('list my notes'), toolCall('c1', 'notes.list', { limit: 5 }), toolResult('c1', '3 notes')]);
    expect(loaded.hasUnsaved).toBe(false);
    await store.closeSession('chat-1');
  });

  it('appends only what is new, never rewriting a line', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    graph.append(user('one'), 1);
    await store.persist(graph);
    const first = readFileSync(join(root, 's.jsonl'), 'utf8');
    await store.persist(graph); // nothing new: nothing written
    expect(readFileSync(join(root, 's.jsonl'), 'utf8')).toBe(first);
    graph.append(assistant('two'), 2);
    await store.persist(graph);
    const second = readFileSync(join(root, 's.jsonl'), 'utf8');
    expect(second.startsWith(first)).toBe(true);
    expect(linesOf(join(root, 's.jsonl'))).toHaveLength(4);
    await store.closeSession('s');
  });

  it('says how many records and bytes each persist appended, and a load how many it read: the file size', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    graph.append(user('one'), 1);
    const first = await store.persist(graph);
    graph.append(assistant('zwei – ünïcode'), 2);
    const second = await store.persist(graph);
    const size = readFileSync(join(root, 's.jsonl')).length;
    expect(first.bytes + second.bytes).toBe(size);
    expect(first.records + second.records).toBe(linesOf(join(root, 's.jsonl')).length);
    await store.closeSession('s');
    const { report } = await store.loadSessionWithReport('s');
    expect(report.bytes).toBe(size);
  });

  it('keeps a leaf moved with branchFrom and no new turn across a reload', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    const a = graph.append(user('a'), 1);
    graph.append(assistant('b'), 2);
    await store.persist(graph);
    graph.branchFrom(a.id);
    await store.persist(graph);
    await store.closeSession('s');
    const reloaded = await store.loadSession('s');
    expect(reloaded.leaf).toBe(a.id);
    // Forking from there after reopening keeps both branches.
    const reopened = await store.openSession('s');
    const c = reopened.append(assistant('c'), 3);
    await store.closeSession('s'); // close persists what is left
    const final = await store.loadSession('s');
    expect(final.children(a.id).map((n) => n.turn)).toEqual([assistant('b'), assistant('c')]);
    expect(final.leaf).toBe(c.id);
  });

  it('keeps condensation markers, so a reloaded session resumes to the same condensed context', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    graph.append(user('old question'), 1);
    graph.append(assistant('old answer'), 2);
    const kept = graph.append(user('recent question'), 3);
    graph.append(assistant('recent answer'), 4);
    const summary = { role: 'user' as const, blocks: [{ kind: 'text' as const, text: '[condensed earlier context] an old exchange' }] };
    graph.append(summary, 5, { condenses: { firstKept: kept.id } });
    const last = graph.append(user('next question'), 6);
    const context = graph.contextTo(last.id);
    await store.closeSession('s');

    const reloaded = await store.loadSession('s');
    expect(reloaded.resume(reloaded.leaf!)).toEqual(context);
    expect(context).toEqual([summary, user('recent question'), assistant('recent answer'), user('next question')]);
    expect(reloaded.pathTo(last.id)).toHaveLength(6);
  });

  it('gives unsaved records back when a write fails, and writes them with the next persist', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    const a = graph.append(user('a'), 1);
    mkdirSync(join(root, 's.jsonl')); // the session file cannot be opened for appending
    const error = await store.persist(graph).then(
      () => null,
      (e: unknown) => e,
    );
    expect(SessionIoError.isInstance(error)).toBe(true);
    expect((error as SessionIoError).cause).toMatchObject({ code: 'EISDIR' });
    expect(graph.hasUnsaved).toBe(true);

    rmdirSync(join(root, 's.jsonl'));
    const b = graph.append(assistant('b'), 2);
    await store.closeSession('s');
    const reloaded = await store.loadSessionWithReport('s');
    expect(reloaded.graph.pathTo(b.id)).toEqual([user('a'), assistant('b')]);
    expect(reloaded.graph.node(a.id)).toEqual(a);
    expect(reloaded.report.skipped).toEqual([]);
  });

  it('recovers after a write fails on an already-open file: the retry checks the tail and writes everything', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    const a = graph.append(user('a'), 1);
    await store.persist(graph); // the session file is now open for appending

    // The next write fails (as on a full disk); the file handle stays open.
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const failing = vi.spyOn(proto, 'write').mockRejectedValueOnce(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    const b = graph.append(assistant('b'), 2);
    const error = await store.persist(graph).then(
      () => null,
      (e: unknown) => e,
    );
    failing.mockRestore();
    expect(SessionIoError.isInstance(error)).toBe(true);
    expect((error as SessionIoError).cause).toMatchObject({ code: 'ENOSPC' });

    // The disk has room again: the retry (which must first check how the file ends) succeeds.
    const c = graph.append(user('c'), 3);
    await store.persist(graph);
    await store.closeSession('s');
    const reloaded = await store.loadSessionWithReport('s');
    expect(reloaded.graph.leaf).toBe(c.id);
    expect(reloaded.graph.pathTo(c.id)).toEqual([user('a'), assistant('b'), user('c')]);
    expect(reloaded.graph.node(a.id)).toEqual(a);
    expect(reloaded.graph.node(b.id)).toEqual(b);
    expect(reloaded.report.skipped).toEqual([]);
  });

  it('keeps the leaf where branchFrom left it when the new turns were appended and then branched away from before one persist', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    const a = graph.append(user('a'), 1);
    await store.persist(graph);
    graph.append(assistant('b'), 2);
    graph.branchFrom(a.id); // back to the leaf the file already records
    await store.persist(graph);
    await store.closeSession('s');

    const reloaded = await store.loadSessionWithReport('s');
    expect(reloaded.graph.leaf).toBe(a.id);
    expect(reloaded.graph.size).toBe(2);
    expect(reloaded.report.leafFallback).toBeNull();
  });

  it('loads a missing session as an empty graph without creating anything', async () => {
    const store = new SessionStore(join(root, 'nothing-here'));
    const { graph, report } = await store.loadSessionWithReport('new');
    expect(graph.size).toBe(0);
    expect(graph.leaf).toBeNull();
    expect(report).toEqual({
      lines: 0,
      bytes: 0,
      records: 0,
      skipped: [],
      orphans: [],
      truncatedTail: false,
      leafFallback: null,
      scope: 'file',
      fullScanReason: null,
    });
    expect(existsSync(join(root, 'nothing-here'))).toBe(false);
    expect(await store.listSessions()).toEqual([]);
  });

  it('refuses hostile session ids with InvalidSessionIdError before touching any file', async () => {
    const sessions = join(root, 'sessions');
    const store = new SessionStore(sessions);
    const hostile = [
      '../x',
      'a/b',
      'a\\b',
      '\u0000',
      'a\u0000b',
      '',
      '.',
      '..',
      '/etc/passwd',
      'C:\\x',
      'C:x',
      'tab\there',
      'x'.repeat(201),
    ];
    for (const id of hostile) {
      for (const call of [
        () => store.loadSession(id),
        () => store.openSession(id),
        () => store.closeSession(id),
        () => store.loadSessionWithReport(id),
      ]) {
        const error = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(InvalidSessionIdError.isInstance(error), JSON.stringify(id)).toBe(true);
        expect((error as InvalidSessionIdError).kind).toBe('invalid_session_id');
      }
      await expect(store.persist(new SessionGraph(id))).rejects.toThrow(SessionNotOpenError);
    }
    expect(existsSync(sessions)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
    // Dots, spaces and unicode inside an id are fine.
    const graph = await store.openSession('v1.2 résumé..draft');
    graph.append(user('ok'), 1);
    await store.closeSession('v1.2 résumé..draft');
    expect(readdirSync(sessions)).toEqual(['v1.2 résumé..draft.jsonl']);
  });

  it('persists only the graph openSession returned, with SessionNotOpenError otherwise', async () => {
    const store = new SessionStore(root);
    const unopened = await store.loadSession('s');
    unopened.append(user('x'), 1);
    await expect(store.persist(unopened)).rejects.toSatisfy((e: unknown) => SessionNotOpenError.isInstance(e));
    expect(unopened.hasUnsaved).toBe(true); // nothing was taken from it

    const opened = await store.openSession('s');
    const stale = await store.loadSession('s');
    stale.append(user('from a stale copy'), 2);
    await expect(store.persist(stale)).rejects.toThrow(SessionNotOpenError);
    await store.closeSession('s');
    await expect(store.persist(opened)).rejects.toThrow(SessionNotOpenError);
    expect(existsSync(join(root, 's.jsonl'))).toBe(false);
  });

  it('serialises overlapping persists so every record lands once, in order', async () => {
    const store = new SessionStore(root);
    const graph = await store.openSession('s');
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      graph.append(user(`q${i}`), i);
      pending.push(store.persist(graph));
    }
    await Promise.all(pending);
    const nodes = linesOf(join(root, 's.jsonl')).filter((r) => r.type === 'node');
    expect(nodes.map((r) => r.node.turn.blocks[0].text)).toEqual(Array.from({ length: 20 }, (_, i) => `q${i}`));
    await store.closeSession('s');
  });

  it('lists sessions with size, modification time and recorded leaf, newest first', async () => {
    const store = new SessionStore(root);
    const one = await store.openSession('one');
    const a = one.append(user('a'), 1);
    one.append(assistant('b'), 2);
    one.branchFrom(a.id);
    await store.closeSession('one');
    const two = await store.openSession('two');
    const big = two.append(user('y'.repeat(200_000)), 1); // longer than the first tail window
    await store.closeSession('two');
    writeFileSync(join(root, 'notes.txt'), 'not a session');

    const list = await store.listSessions();
    expect(new Map(list.map((s) => [s.id, s.leaf]))).toEqual(
      new Map([
        ['one', a.id],
        ['two', big.id],
      ]),
    );
    for (const entry of list) {
      expect(entry.size).toBe(readFileSync(join(root, `${entry.id}.jsonl`)).length);
      expect(entry.modifiedAt).toBeInstanceOf(Date);
    }
    expect(list[0].modifiedAt.getTime()).toBeGreaterThanOrEqual(list[1].modifiedAt.getTime());
  });
});

describe('migrators', () => {
  // Version 0 wrote `{ kind: 'turn', id, prev, role, text, ts }` lines and `{ kind: 'tip', id }` heads.
  const v0ToV1: Migrator = {
    id: 'v0-to-v1',
    upgrade(raw) {
      const r = raw as Record<string, unknown>;
      if (r.kind === 'turn') return { type: 'node', node: { id: r.id, parent: r.prev, at: r.ts, turn: { role: r.role, text: r.text } } };
      if (r.kind === 'tip') return { type: 'head', leaf: r.id };
      if (r.kind === 'bad') throw new Error('cannot read this');
      return raw;
    },
  };
  // Version 1 kept a bare `text` on the turn; version 2 has blocks. Runs after v0-to-v1, on its output.
  const v1ToV2: Migrator = {
    id: 'v1-to-v2',
    upgrade(raw) {
      const r = raw as { type?: string; node?: { turn: { role: string; text?: string; blocks?: unknown } } };
      if (r.type === 'node' && r.node!.turn.text !== undefined) {
        const { role, text } = r.node!.turn;
        r.node!.turn = { role, blocks: [{ kind: 'text', text }] };
      }
      return r;
    },
  };

  it('run in order on every record; failures and non-records are skipped and counted, never silently', async () => {
    const path = join(root, 'old.jsonl');
    const t1 = hashNode({ parent: null, turn: user('hello'), at: 1 });
    const t2 = hashNode({ parent: t1, turn: assistant('hi'), at: 2 });
    const old = [
      { kind: 'turn', id: t1, prev: null, role: 'user', text: 'hello', ts: 1 },
      { kind: 'bad' },
      { kind: 'turn', id: t2, prev: t1, role: 'assistant', text: 'hi', ts: 2 },
      { kind: 'comment', text: 'not a record' },
      { kind: 'tip', id: t2 },
    ];
    writeFileSync(path, old.map((r) => JSON.stringify(r)).join('\n') + '\n');

    const { graph, report } = await new SessionStore(root, [v0ToV1, v1ToV2], { verify: true }).loadSessionWithReport('old');
    expect(graph.pathTo(t2)).toEqual([user('hello'), assistant('hi')]);
    expect(graph.leaf).toBe(t2);
    expect(report.lines).toBe(5);
    expect(report.records).toBe(3);
    expect(report.skipped).toEqual([
      { line: 2, reason: 'migrator "v0-to-v1" threw: cannot read this' },
      { line: 4, reason: 'not a node, head or started record (type undefined)' },
    ]);

    // In the other order v1-to-v2 sees no node and nothing narrows: all five lines are reported.
    const reversed = await new SessionStore(root, [v1ToV2, v0ToV1]).loadSessionWithReport('old');
    expect(reversed.graph.size).toBe(0);
    expect(reversed.report.skipped.map((s) => s.line)).toEqual([1, 2, 3, 4]);
    expect(reversed.report.skipped[0].reason).toMatch(/malformed node record/);
    // The head names a node that never loaded: reported, not pretended.
    expect(reversed.report.leafFallback).toEqual({ recorded: t2, restored: null });
  });

  it('also run before a listing reads the recorded leaf', async () => {
    const t1 = hashNode({ parent: null, turn: user('hello'), at: 1 });
    writeFileSync(join(root, 'old.jsonl'), `${JSON.stringify({ kind: 'turn', id: t1, prev: null, role: 'user', text: 'hello', ts: 1 })}\n`);
    appendFileSync(join(root, 'old.jsonl'), `${JSON.stringify({ kind: 'tip', id: t1 })}\n`);
    expect((await new SessionStore(root, [v0ToV1, v1ToV2]).listSessions())[0].leaf).toBe(t1);
  });
});
