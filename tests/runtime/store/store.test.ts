import {
  appendFileSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { open } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  InvalidSessionIdError,
  SessionIoError,
  SessionLeaseLostError,
  SessionStore,
  SessionWriter,
  hashNode,
} from '../../../src/runtime/store/index.js';
import type { Migrator } from '../../../src/runtime/contract/index.js';
import { assistant, tempRoot, toolCall, toolResult, user } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => ({ root, cleanup } = tempRoot()));
afterEach(() => cleanup());

const readlinkOr = (path: string) => {
  try {
    return readlinkSync(path);
  } catch {
    return null; // an fd closed since the directory was read
  }
};

const linesOf = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));

describe('SessionStore', () => {
  it('persists appended turns as node and head lines and loads the same graph back', async () => {
    const store = new SessionStore(join(root, 'deep', 'sessions'));
    const writer = await SessionWriter.open(store, 'chat-1');
    const a = writer.append(user('list my notes'), 1);
    const b = writer.append(toolCall('c1', 'notes.list', { limit: 5 }), 2);
    const c = writer.append(toolResult('c1', '3 notes'), 3);
    await writer.persist();

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
    expect(writer.hasPending).toBe(false);
    await writer.close();
  });

  it('appends only what is new, never rewriting a line', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('one'), 1);
    await writer.persist();
    const first = readFileSync(join(root, 's.jsonl'), 'utf8');
    expect(await writer.persist()).toEqual({ records: 0, bytes: 0 }); // nothing new: nothing written
    expect(readFileSync(join(root, 's.jsonl'), 'utf8')).toBe(first);
    writer.append(assistant('two'), 2);
    await writer.persist();
    const second = readFileSync(join(root, 's.jsonl'), 'utf8');
    expect(second.startsWith(first)).toBe(true);
    expect(linesOf(join(root, 's.jsonl'))).toHaveLength(4);
    await writer.close();
  });

  it('says how many records and bytes each persist appended, and a load how many it read: the file size', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('one'), 1);
    const first = (await writer.persist())!;
    writer.append(assistant('zwei – ünïcode'), 2);
    const second = (await writer.persist())!;
    const size = readFileSync(join(root, 's.jsonl')).length;
    expect(first.bytes + second.bytes).toBe(size);
    expect(first.records + second.records).toBe(linesOf(join(root, 's.jsonl')).length);
    await writer.close();
    const { report } = await store.loadSessionWithReport('s');
    expect(report.bytes).toBe(size);
  });

  it('keeps a leaf moved with branchFrom and no new turn across a reload', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    const a = writer.append(user('a'), 1);
    writer.append(assistant('b'), 2);
    await writer.persist();
    writer.graph.branchFrom(a.id);
    await writer.persist();
    await writer.close();
    const reloaded = await store.loadSession('s');
    expect(reloaded.leaf).toBe(a.id);
    // Forking from there after reopening keeps both branches.
    const reopened = await SessionWriter.open(store, 's');
    const c = reopened.append(assistant('c'), 3);
    await reopened.close(); // close persists what is left
    const final = await store.loadSession('s');
    expect(final.children(a.id).map((n) => n.turn)).toEqual([assistant('b'), assistant('c')]);
    expect(final.leaf).toBe(c.id);
  });

  it('keeps condensation markers, so a reloaded session resumes to the same condensed context', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('old question'), 1);
    writer.append(assistant('old answer'), 2);
    const kept = writer.append(user('recent question'), 3);
    writer.append(assistant('recent answer'), 4);
    const summary = { role: 'user' as const, blocks: [{ kind: 'text' as const, text: '[condensed earlier context] an old exchange' }] };
    writer.append(summary, 5, { condenses: { firstKept: kept.id } });
    const last = writer.append(user('next question'), 6);
    const context = writer.graph.contextTo(last.id);
    await writer.close();

    const reloaded = await store.loadSession('s');
    expect(reloaded.resume(reloaded.leaf!)).toEqual(context);
    expect(context).toEqual([summary, user('recent question'), assistant('recent answer'), user('next question')]);
    expect(reloaded.pathTo(last.id)).toHaveLength(6);
  });

  it('refuses an append it cannot write with SessionIoError; the writer keeps the records and writes them with the next persist', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    const a = writer.append(user('a'), 1);
    mkdirSync(join(root, 's.jsonl')); // the session file cannot be opened for appending
    const error = await writer.persist().then(
      () => null,
      (e: unknown) => e,
    );
    expect(SessionIoError.isInstance(error)).toBe(true);
    expect((error as SessionIoError).cause).toMatchObject({ code: 'EISDIR' });
    expect(writer.hasPending).toBe(true);

    rmdirSync(join(root, 's.jsonl'));
    const b = writer.append(assistant('b'), 2);
    await writer.close();
    const reloaded = await store.loadSessionWithReport('s');
    expect(reloaded.graph.pathTo(b.id)).toEqual([user('a'), assistant('b')]);
    expect(reloaded.graph.node(a.id)).toEqual(a);
    expect(reloaded.report.skipped).toEqual([]);
  });

  it('recovers after a write fails on an already-open file: the retry checks the tail and writes everything', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    const a = writer.append(user('a'), 1);
    await writer.persist(); // the session file is now open for appending

    // The next write fails (as on a full disk); the file handle stays open.
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const failing = vi.spyOn(proto, 'write').mockRejectedValueOnce(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    const b = writer.append(assistant('b'), 2);
    const error = await writer.persist().then(
      () => null,
      (e: unknown) => e,
    );
    failing.mockRestore();
    expect(SessionIoError.isInstance(error)).toBe(true);
    expect((error as SessionIoError).cause).toMatchObject({ code: 'ENOSPC' });

    // The disk has room again: the retry (which must first check how the file ends) succeeds.
    const c = writer.append(user('c'), 3);
    await writer.persist();
    await writer.close();
    const reloaded = await store.loadSessionWithReport('s');
    expect(reloaded.graph.leaf).toBe(c.id);
    expect(reloaded.graph.pathTo(c.id)).toEqual([user('a'), assistant('b'), user('c')]);
    expect(reloaded.graph.node(a.id)).toEqual(a);
    expect(reloaded.graph.node(b.id)).toEqual(b);
    expect(reloaded.report.skipped).toEqual([]);
  });

  it('makes every append durable before it resolves: a write on a file opened O_DSYNC, or else a write and an fsync', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('a'), 1);
    await writer.persist(); // creates the file, and syncs the directory that names it
    const probe = await open(join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const syncs = vi.spyOn(proto, 'sync');
    writer.append(assistant('b'), 2);
    await writer.persist();
    writer.append(user('c'), 3);
    await writer.persist();
    // The handle the appends went through, found by the file it has open.
    const path = join(root, 's.jsonl');
    const fds = process.platform === 'linux' ? readdirSync('/proc/self/fd').filter((fd) => readlinkOr(`/proc/self/fd/${fd}`) === path) : [];
    const flags = (fd: string) => parseInt(/flags:\s*([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1], 8);
    const dataSync = fds.some((fd) => (flags(fd) & constants.O_DSYNC) !== 0);
    if (process.platform === 'linux') expect(dataSync).toBe(true);
    // One system call per append where the flag makes the write durable; otherwise every write is synced.
    expect(syncs).toHaveBeenCalledTimes(dataSync ? 0 : 2);
    syncs.mockRestore();
    await writer.close();
  });

  it('keeps the leaf where branchFrom left it when the new turns were appended and then branched away from before one persist', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    const a = writer.append(user('a'), 1);
    await writer.persist();
    writer.append(assistant('b'), 2);
    writer.graph.branchFrom(a.id); // back to the leaf the file already records
    await writer.persist();
    await writer.close();

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
        () => store.acquire(id),
        () => store.read(id),
        () => store.readLivePath(id),
        () => store.append({ sessionId: id, epoch: 1 }, []),
        () => store.release({ sessionId: id, epoch: 1 }),
        () => store.loadSessionWithReport(id),
      ]) {
        const error = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(InvalidSessionIdError.isInstance(error), JSON.stringify(id)).toBe(true);
        expect((error as InvalidSessionIdError).kind).toBe('invalid_session_id');
      }
    }
    expect(existsSync(sessions)).toBe(false);
    expect(readdirSync(root)).toEqual([]);
    // Dots, spaces and unicode inside an id are fine.
    const writer = await SessionWriter.open(store, 'v1.2 résumé..draft');
    writer.append(user('ok'), 1);
    await writer.close();
    expect(readdirSync(sessions)).toEqual(['v1.2 résumé..draft.jsonl']);
  });

  it('appends only under the lease it holds: after release, or with a lease from another store, nothing is written', async () => {
    const store = new SessionStore(root);
    const other = new SessionStore(root);
    const record = {
      type: 'node' as const,
      node: { id: hashNode({ parent: null, turn: user('x'), at: 1 }), parent: null, turn: user('x'), at: 1 },
    };
    const lease = await store.acquire('s');
    await expect(other.append(lease, [record])).rejects.toSatisfy(SessionLeaseLostError.isInstance);
    await store.release(lease);
    await expect(store.append(lease, [record])).rejects.toSatisfy(SessionLeaseLostError.isInstance);
    expect(existsSync(join(root, 's.jsonl'))).toBe(false);
    expect(existsSync(join(root, 's.lock'))).toBe(false);
  });

  it('serialises overlapping persists so every record lands once, in order', async () => {
    const store = new SessionStore(root);
    const writer = await SessionWriter.open(store, 's');
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      writer.append(user(`q${i}`), i);
      pending.push(writer.persist());
    }
    await Promise.all(pending);
    const nodes = linesOf(join(root, 's.jsonl')).filter((r) => r.type === 'node');
    expect(nodes.map((r) => r.node.turn.blocks[0].text)).toEqual(Array.from({ length: 20 }, (_, i) => `q${i}`));
    await writer.close();
  });

  it('lists sessions with size, modification time and recorded leaf, newest first', async () => {
    const store = new SessionStore(root);
    const one = await SessionWriter.open(store, 'one');
    const a = one.append(user('a'), 1);
    one.append(assistant('b'), 2);
    one.graph.branchFrom(a.id);
    await one.close();
    const two = await SessionWriter.open(store, 'two');
    const big = two.append(user('y'.repeat(200_000)), 1); // longer than the first tail window
    await two.close();
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
