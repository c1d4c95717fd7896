// The behaviour every SessionStoreLike must have, run against each store by its own test file (as
// Hono runs one router suite against every router): the file store, the in-memory store, and any
// other implementation (a database) that wants to stand in for them under the conductor.
import { describe, expect, it } from 'vitest';
import type { Turn } from '../../../src/runtime/contract/index.js';
import {
  InvalidSessionIdError,
  SessionGraph,
  SessionLockedError,
  SessionNotOpenError,
  UnknownNodeError,
  type SessionStoreLike,
} from '../../../src/runtime/store/index.js';
import { createAgent } from '../../../src/entries/runtime.js';
import type { ModelInvoker } from '../../../src/runtime/index.js';

/** A fresh, empty store per call; `close` releases whatever it holds (a temp dir, a connection). */
export type SessionStoreFactory = () => Promise<{ store: SessionStoreLike; close(): Promise<void> }>;

const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });
const usage = { inputTokens: 10, outputTokens: 2, cacheWriteTokens: 0, cacheReadTokens: 4 };

export function sessionStoreContract(name: string, open: SessionStoreFactory): void {
  describe(`${name}: the SessionStoreLike contract`, () => {
    // A store may hand back only a session's live path (PostgreSQL does above `livePathAbove`); tree
    // views (size, children, every node) need the rest, which `loadWhole` reads (nothing to do otherwise).
    const read = async (store: SessionStoreLike, id: string) => whole(await store.loadSession(id));
    const whole = async (graph: SessionGraph) => {
      await graph.loadWhole();
      return graph;
    };

    const withStore = async (body: (store: SessionStoreLike) => Promise<void>) => {
      const opened = await open();
      try {
        await body(opened.store);
      } finally {
        await opened.close();
      }
    };

    it('loads a missing session as an empty graph', () =>
      withStore(async (store) => {
        const graph = await store.loadSession('never-written');
        expect(graph).toBeInstanceOf(SessionGraph);
        expect(graph.leaf).toBeNull();
        expect(graph.size).toBe(0);
      }));

    it('persists what an open graph gained and loads the same nodes, leaf, usage and markers back', () =>
      withStore(async (store) => {
        const graph = await store.openSession('s1');
        const a = graph.append(say('user', 'hello'), 1);
        const b = graph.append(say('assistant', 'hi'), 2, { usage, model: 'claude-test' });
        const summary = graph.append(say('user', '[condensed earlier context]\nThey greeted.'), 3, { condenses: { firstKept: b.id } });
        await store.persist(graph);
        await store.closeSession('s1');

        const back = await read(store, 's1');
        expect(back.leaf).toBe(summary.id);
        expect([...back.allNodes()].map((n) => n.id).sort()).toEqual([a.id, b.id, summary.id].sort());
        expect(back.node(b.id)).toEqual(b);
        expect(back.node(summary.id)?.condenses).toEqual({ firstKept: b.id });
        expect(back.resume(back.leaf!)).toEqual(graph.resume(graph.leaf!));
        expect(back.usageTotal()).toEqual(usage);
      }));

    it('shows readers only what was persisted, and persists only what is new (a repeated persist adds nothing)', () =>
      withStore(async (store) => {
        const graph = await store.openSession('s2');
        graph.append(say('user', 'one'), 1);
        expect((await read(store, 's2')).size).toBe(0);
        await store.persist(graph);
        await store.persist(graph);
        graph.append(say('assistant', 'two'), 2);
        const seen = await read(store, 's2');
        expect(seen.size).toBe(1);
        await store.persist(graph);
        expect((await read(store, 's2')).size).toBe(2);
        await store.closeSession('s2');
      }));

    it('keeps a leaf moved with branchFrom, and the branch appended after it', () =>
      withStore(async (store) => {
        const graph = await store.openSession('s3');
        const a = graph.append(say('user', 'a'), 1);
        graph.append(say('assistant', 'b'), 2);
        await store.persist(graph);
        graph.branchFrom(a.id);
        await store.persist(graph);
        expect((await read(store, 's3')).leaf).toBe(a.id);
        const c = graph.append(say('assistant', 'c'), 3);
        await store.closeSession('s3');
        const back = await read(store, 's3');
        expect(back.leaf).toBe(c.id);
        expect(back.children(a.id)).toHaveLength(2);
      }));

    it('gives one writer at a time: a second open is refused until the first closes, which persists what is left', () =>
      withStore(async (store) => {
        const graph = await store.openSession('s4');
        graph.append(say('user', 'kept on close'), 1);
        await expect(store.openSession('s4')).rejects.toSatisfy(SessionLockedError.isInstance);
        await store.closeSession('s4');
        const again = await whole(await store.openSession('s4'));
        expect(again.size).toBe(1);
        await store.closeSession('s4');
        await store.closeSession('s4'); // closing a session that is not open does nothing
      }));

    it('persists only the graph openSession returned', () =>
      withStore(async (store) => {
        const stray = new SessionGraph('s5');
        stray.append(say('user', 'x'), 1);
        await expect(store.persist(stray)).rejects.toSatisfy(SessionNotOpenError.isInstance);
        await store.openSession('s5');
        await expect(store.persist(stray)).rejects.toSatisfy(SessionNotOpenError.isInstance);
        await store.closeSession('s5');
        expect((await read(store, 's5')).size).toBe(0);
      }));

    it('lands every record of overlapping persists exactly once', () =>
      withStore(async (store) => {
        const graph = await store.openSession('s6');
        const writes: Promise<unknown>[] = [];
        for (let i = 0; i < 20; i++) {
          graph.append(say(i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`), i);
          writes.push(store.persist(graph));
        }
        await Promise.all(writes);
        await store.closeSession('s6');
        const back = await read(store, 's6');
        expect(back.size).toBe(20);
        expect(back.pathTo(back.leaf!).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(
          Array.from({ length: 20 }, (_, i) => `turn ${i}`),
        );
      }));

    it('refuses path-like and control-character session ids on every method, before touching anything', () =>
      withStore(async (store) => {
        for (const id of ['', '.', '..', '../escape', 'a/b', 'a\\b', 'c:drive', 'nul\u0000byte', 'line\nbreak']) {
          await expect(store.loadSession(id), JSON.stringify(id)).rejects.toSatisfy(InvalidSessionIdError.isInstance);
          await expect(store.openSession(id), JSON.stringify(id)).rejects.toSatisfy(InvalidSessionIdError.isInstance);
          await expect(store.closeSession(id), JSON.stringify(id)).rejects.toSatisfy(InvalidSessionIdError.isInstance);
        }
      }));

    it('reports a clean load for a session it wrote, when it can report at all', () =>
      withStore(async (store) => {
        const graph = await store.openSession('s7');
        graph.append(say('user', 'a'), 1);
        await store.closeSession('s7');
        if (store.openSessionWithReport === undefined) return;
        const { graph: back, report } = await store.openSessionWithReport('s7');
        expect((await whole(back)).size).toBe(1);
        expect(report).toMatchObject({ skipped: [], orphans: [], truncatedTail: false, leafFallback: null });
        await store.closeSession('s7');
      }));

    it('says what each persist wrote, and a load reads back exactly those records and bytes, when it can say', () =>
      withStore(async (store) => {
        const graph = await store.openSession('s8');
        graph.append(say('user', 'a'), 1);
        const b = graph.append(say('assistant', 'b'), 2);
        const first = await store.persist(graph);
        graph.branchFrom(b.id);
        graph.append(say('user', 'c ünïcode'), 3);
        const second = await store.persist(graph);
        const idle = await store.persist(graph);
        await store.closeSession('s8');
        if (first === undefined || store.openSessionWithReport === undefined) return;
        // At least the nodes each write carried (a head record may follow them).
        expect(first.records).toBeGreaterThanOrEqual(2);
        expect(second!.records).toBeGreaterThanOrEqual(1);
        expect(idle).toEqual({ records: 0, bytes: 0 });
        const { report } = await store.openSessionWithReport('s8');
        expect(report.records).toBe(first.records + second!.records);
        expect(report.bytes).toBe(first.bytes + second!.bytes);
        await store.closeSession('s8');
      }));

    it('carries a conductor: runs persist, a second agent resumes, branches and condenses over the same store', () =>
      withStore(async (store) => {
        const replies = ['first answer', 'second answer', 'Summary: they talked.', 'third answer'];
        // Long enough for the summary to make the context smaller (else nothing is condensed).
        const one = `one ${'words '.repeat(100)}`;
        const invoke: ModelInvoker = async () => ({ turn: say('assistant', replies.shift()!), stopReason: 'end_turn' });
        const first = createAgent({ model: 'm', sessionId: 'convo', compaction: { keepRecent: 2 } }, { invokeModel: invoke, store });
        await first.submit(one);
        await first.submit('two');
        await first.close();

        const second = createAgent({ model: 'm', compaction: { keepRecent: 2 } }, { invokeModel: invoke, store });
        expect((await second.resume('convo')).messages).toHaveLength(4);
        const condensed = await second.condense();
        expect(condensed.compacted?.removed).toBe(2);
        expect(condensed.snapshot.messages).toHaveLength(3);
        const graph = await read(store, 'convo');
        const firstAnswer = graph.nodesTo(graph.leaf!).find((n) => (n.turn.blocks[0] as { text: string }).text === 'first answer')!;
        const branched = await second.branchFrom(firstAnswer.id);
        expect(branched.messages.map((t) => (t.blocks[0] as { text: string }).text)).toEqual([one, 'first answer']);
        await expect(second.branchFrom('f'.repeat(64))).rejects.toSatisfy(UnknownNodeError.isInstance);
        await second.submit('three');
        await second.close();

        const after = await read(store, 'convo');
        expect(after.children(firstAnswer.id)).toHaveLength(2);
        expect(after.resume(after.leaf!).map((t) => (t.blocks[0] as { text: string }).text)).toEqual([
          one,
          'first answer',
          'three',
          'third answer',
        ]);
      }));
  });
}
