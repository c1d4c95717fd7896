// The behaviour every SessionStoreLike must have, run against each store by its own test file (as
// Hono runs one router suite against every router): the file store, the in-memory store, PostgreSQL,
// the tiny Map store docs/sessions.md shows, and any other implementation that wants to stand in for
// them under the conductor. First the four methods of the seam (and the optional live path), then a
// SessionWriter and a conductor on top.
import { describe, expect, it } from 'vitest';
import type { GuardrailTrip, SessionNode, SessionRecord, Turn } from '../../../src/runtime/contract/index.js';
import {
  InvalidRecordError,
  InvalidSessionIdError,
  SessionGraph,
  SessionLeaseLostError,
  SessionLockedError,
  SessionWriter,
  UnknownNodeError,
  loadSession,
  loadSessionWithReport,
  type SessionLease,
  type SessionStoreLike,
} from '../../../src/runtime/store/index.js';
import { createAgent } from '../../../src/entries/runtime.js';
import type { ModelInvoker } from '../../../src/runtime/index.js';
import { RunFault } from '../../../src/runtime/loop/errors.js';

/** A fresh, empty store per call; `close` releases whatever it holds (a temp dir, a connection). */
export type SessionStoreFactory = () => Promise<{ store: SessionStoreLike; close(): Promise<void> }>;

const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });
const usage = { inputTokens: 10, outputTokens: 2, cacheWriteTokens: 0, cacheReadTokens: 4 };
const text = (turn: Turn) => (turn.blocks[0] as { text: string }).text;
const node = (n: SessionNode): SessionRecord => ({ type: 'node', node: n });
const trip = (guardrail: string, at: number): GuardrailTrip => ({
  guardrail,
  stage: 'tool_call',
  message: `${guardrail} said no: "rm -rf /" ünïcode`,
  callId: 'call-7',
  toolName: 'shell.run',
  runId: `run-${at}`,
  at,
});
/** A model that answers each prompt by name, whatever ran before it. */
const answering: ModelInvoker = async (request) => ({
  turn: say('assistant', `answer to ${text(request.messages.findLast((turn) => turn.role === 'user')!)}`),
  stopReason: 'end_turn',
});

/**
 * The store with its appends watched: `failNext(mode, times)` makes the next appends fail, either before they
 * reach the store (`before`: nothing written) or after the store wrote them (`after`: written, but the
 * caller hears a failure, as when a connection drops before the commit is confirmed). `leases` are the
 * leases the store handed out, for a test to release one behind its holder's back.
 */
function watched(store: SessionStoreLike) {
  let failing: 'before' | 'after' | null = null;
  let failures = 0;
  const leases: SessionLease[] = [];
  const appended: SessionRecord[][] = [];
  const wrapped: SessionStoreLike = {
    acquire: async (id) => {
      const lease = await store.acquire(id);
      leases.push(lease);
      return lease;
    },
    read: (id) => store.read(id),
    append: async (lease, records) => {
      const mode = failing;
      if (--failures <= 0) failing = null;
      if (mode === 'before') throw new Error('the connection dropped before the append was sent');
      const written = await store.append(lease, records);
      appended.push([...records]);
      if (mode === 'after') throw new Error('the connection dropped before the append was confirmed');
      return written;
    },
    release: (lease) => store.release(lease),
  };
  if (store.readLivePath !== undefined) wrapped.readLivePath = (id) => store.readLivePath!(id);
  const failNext = (mode: 'before' | 'after', times = 1) => {
    failing = mode;
    failures = times;
  };
  return { store: wrapped, leases, appended, failNext };
}

/** An error and everything it was caused by, aggregated errors included. */
function causes(error: unknown): unknown[] {
  if (!(error instanceof Error)) return [error];
  const inner = error instanceof AggregateError ? error.errors : [];
  return [error, ...inner.flatMap(causes), ...(error.cause === undefined ? [] : causes(error.cause))];
}

export function sessionStoreContract(name: string, open: SessionStoreFactory): void {
  describe(`${name}: the SessionStoreLike contract`, () => {
    // A store may hand back only a session's live path; tree views (size, children, every node) need
    // the rest, which `loadWhole` reads (nothing to do otherwise).
    const whole = async (store: SessionStoreLike, id: string) => {
      const graph = await loadSession(store, id);
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

    describe('the seam', () => {
      it('reads a missing session as no records with a clean report, and loads it as an empty graph', () =>
        withStore(async (store) => {
          const clean = { skipped: [], orphans: [], truncatedTail: false, leafFallback: null, records: 0 };
          expect(await store.read('never-written')).toMatchObject({ records: [], report: clean });
          if (store.readLivePath !== undefined) {
            expect(await store.readLivePath('never-written')).toMatchObject({ records: [], report: clean });
          }
          const graph = await loadSession(store, 'never-written');
          expect(graph).toBeInstanceOf(SessionGraph);
          expect(graph.leaf).toBeNull();
          expect(graph.size).toBe(0);
        }));

      it('appends records under a lease and reads them back: nodes, usage, markers, starts and the leaf', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s1');
          const a = made.append(say('user', 'hello'), 1);
          const b = made.append(say('assistant', 'hi'), 2, { usage, model: 'claude-test' });
          const summary = made.append(say('user', '[condensed earlier context]\nThey greeted.'), 3, { condenses: { firstKept: b.id } });
          const lease = await store.acquire('s1');
          expect(lease.sessionId).toBe('s1');
          await store.append(lease, [node(a), node(b), node(summary), { type: 'started', callIds: ['call-1', 'call-1'] }]);
          await store.append(lease, [
            { type: 'head', leaf: summary.id },
            { type: 'started', callIds: ['call-2'] },
          ]);
          await store.release(lease);

          const read = await store.read('s1');
          expect(read.records.filter((record) => record.type === 'node')).toEqual([node(a), node(b), node(summary)]);
          const back = await whole(store, 's1');
          expect(back.leaf).toBe(summary.id);
          expect(back.node(b.id)).toEqual(b);
          expect(back.node(summary.id)?.condenses).toEqual({ firstKept: b.id });
          expect(back.resume(back.leaf!)).toEqual(made.resume(summary.id));
          expect(back.usageTotal()).toEqual(usage);
          expect([back.startsOf('call-1'), back.startsOf('call-2'), back.startsOf('call-3')]).toEqual([2, 1, 0]);
        }));

      it('shows readers only what was appended', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s2');
          const lease = await store.acquire('s2');
          expect((await whole(store, 's2')).size).toBe(0);
          await store.append(lease, [node(made.append(say('user', 'one'), 1))]);
          const two = made.append(say('assistant', 'two'), 2);
          expect((await whole(store, 's2')).size).toBe(1);
          await store.append(lease, [node(two)]);
          const back = await whole(store, 's2');
          expect(back.size).toBe(2);
          expect(back.leaf).toBe(two.id);
          await store.release(lease);
        }));

      it('keeps a head record that moves the leaf back, and the branch appended after it', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s3');
          const a = made.append(say('user', 'a'), 1);
          const b = made.append(say('assistant', 'b'), 2);
          const lease = await store.acquire('s3');
          await store.append(lease, [node(a), node(b), { type: 'head', leaf: a.id }]);
          expect((await loadSession(store, 's3')).leaf).toBe(a.id);
          made.branchFrom(a.id);
          const c = made.append(say('assistant', 'c'), 3);
          await store.append(lease, [node(c)]);
          await store.release(lease);
          const back = await whole(store, 's3');
          expect(back.leaf).toBe(c.id);
          expect(back.children(a.id).map((child) => child.id)).toEqual([b.id, c.id]);
        }));

      it('keeps the guardrail trip a head carries: every load gives it at its leaf, and the next record placing the leaf clears it', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s-trip');
          const a = made.append(say('user', 'a'), 1);
          const b = made.append(say('assistant', 'b'), 2);
          const lease = await store.acquire('s-trip');
          await store.append(lease, [node(a), node(b), { type: 'head', leaf: a.id, tripped: trip('deny', 3) }]);
          const live = await loadSession(store, 's-trip');
          const all = await loadSessionWithReport(store, 's-trip', { whole: true });
          expect([live.leaf, live.tripped]).toEqual([a.id, trip('deny', 3)]);
          expect([all.graph.leaf, all.graph.tripped]).toEqual([a.id, trip('deny', 3)]);

          // A node after it moves on; a trip may stand at no leaf at all (the first run of a session); a plain head moves on too.
          made.branchFrom(a.id);
          const c = made.append(say('assistant', 'c'), 4);
          await store.append(lease, [node(c)]);
          expect((await loadSession(store, 's-trip')).tripped).toBeUndefined();
          await store.append(lease, [
            { type: 'started', callIds: ['call-1'] },
            { type: 'head', leaf: null, tripped: trip('size', 5) },
          ]);
          const empty = await loadSession(store, 's-trip');
          expect([empty.leaf, empty.tripped]).toEqual([null, trip('size', 5)]);
          await store.append(lease, [{ type: 'head', leaf: b.id }]);
          const moved = await loadSession(store, 's-trip');
          expect([moved.leaf, moved.tripped]).toEqual([b.id, undefined]);
          await store.release(lease);
        }));

      it('refuses a head whose trip is malformed, writing none of the append', () =>
        withStore(async (store) => {
          const a = new SessionGraph('s-bad-trip').append(say('user', 'a'), 1);
          const lease = await store.acquire('s-bad-trip');
          for (const tripped of [{ ...trip('deny', 2), stage: 'elsewhere' }, { ...trip('deny', 2), guardrail: '' }, 'tripped']) {
            const records = [node(a), { type: 'head', leaf: a.id, tripped }] as unknown as SessionRecord[];
            await expect(store.append(lease, records)).rejects.toSatisfy(InvalidRecordError.isInstance);
          }
          await store.release(lease);
          expect((await store.read('s-bad-trip')).records).toEqual([]);
        }));

      it('gives one writer at a time: a second acquire is refused until the lease is released, and a stale release frees nothing', () =>
        withStore(async (store) => {
          const first = await store.acquire('s4');
          await expect(store.acquire('s4')).rejects.toSatisfy(SessionLockedError.isInstance);
          await store.release(first);
          await store.release(first); // releasing a lease that is not held does nothing
          const second = await store.acquire('s4');
          expect(second.epoch).not.toBe(first.epoch);
          await store.release(first); // ... not even to the lease held now
          await expect(store.acquire('s4')).rejects.toSatisfy(SessionLockedError.isInstance);
          await store.release(second);
          await store.release(await store.acquire('s4'));
        }));

      it('fences: an append under a released lease is refused with SessionLeaseLostError and writes nothing, also once another writer holds it', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s5');
          const a = made.append(say('user', 'from the first writer'), 1);
          const first = await store.acquire('s5');
          await store.append(first, [node(a)]);
          await store.release(first);
          const late = made.append(say('assistant', 'written too late'), 2);
          await expect(store.append(first, [node(late)])).rejects.toSatisfy(SessionLeaseLostError.isInstance);
          const second = await store.acquire('s5');
          await expect(store.append(first, [node(late)])).rejects.toSatisfy(SessionLeaseLostError.isInstance);
          await expect(store.append({ sessionId: 's5', epoch: second.epoch + 1000 }, [node(late)])).rejects.toSatisfy(
            SessionLeaseLostError.isInstance,
          );
          const b = new SessionGraph('s5');
          b.append(say('user', 'from the first writer'), 1);
          const next = b.append(say('assistant', 'from the second writer'), 3);
          await store.append(second, [node(next)]);
          await store.release(second);
          const back = await whole(store, 's5');
          expect(back.size).toBe(2);
          expect(back.resume(back.leaf!).map(text)).toEqual(['from the first writer', 'from the second writer']);
          expect(back.has(late.id)).toBe(false);
        }));

      it('lands every record of overlapping appends exactly once, in order', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s6');
          const lease = await store.acquire('s6');
          const writes: Promise<unknown>[] = [];
          for (let i = 0; i < 20; i++)
            writes.push(store.append(lease, [node(made.append(say(i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`), i))]));
          await Promise.all(writes);
          await store.release(lease);
          const back = await whole(store, 's6');
          expect(back.size).toBe(20);
          expect(back.pathTo(back.leaf!).map(text)).toEqual(Array.from({ length: 20 }, (_, i) => `turn ${i}`));
        }));

      it('takes the same records again after a failure: a node written twice is one node, a start written twice counts twice', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s7');
          const a = made.append(say('user', 'a'), 1);
          const b = made.append(say('assistant', 'b'), 2);
          const records: SessionRecord[] = [node(a), node(b), { type: 'started', callIds: ['call-1'] }, { type: 'head', leaf: b.id }];
          const lease = await store.acquire('s7');
          await store.append(lease, records);
          await store.append(lease, records); // the retry of an append whose outcome was unknown
          await store.release(lease);
          const back = await whole(store, 's7');
          expect(back.size).toBe(2);
          expect(back.leaf).toBe(b.id);
          expect(back.pathTo(b.id).map(text)).toEqual(['a', 'b']);
          expect(back.startsOf('call-1')).toBe(2);
        }));

      it('refuses path-like and control-character session ids on every method, before touching anything', () =>
        withStore(async (store) => {
          for (const id of ['', '.', '..', '../escape', 'a/b', 'a\\b', 'c:drive', 'nul\u0000byte', 'line\nbreak']) {
            const label = JSON.stringify(id);
            await expect(store.acquire(id), label).rejects.toSatisfy(InvalidSessionIdError.isInstance);
            await expect(store.read(id), label).rejects.toSatisfy(InvalidSessionIdError.isInstance);
            if (store.readLivePath !== undefined)
              await expect(store.readLivePath(id), label).rejects.toSatisfy(InvalidSessionIdError.isInstance);
            await expect(store.append({ sessionId: id, epoch: 1 }, []), label).rejects.toSatisfy(InvalidSessionIdError.isInstance);
            await expect(store.release({ sessionId: id, epoch: 1 }), label).rejects.toSatisfy(InvalidSessionIdError.isInstance);
          }
        }));

      it('refuses an append holding anything but session records, writing none of it', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s8');
          const good = node(made.append(say('user', 'fine'), 1));
          const lease = await store.acquire('s8');
          const bad: unknown[] = [
            { type: 'checkpoint', leaf: 'x' },
            { type: 'node', node: { id: 'x', parent: null, turn: { role: 'robot', blocks: [] }, at: 1 } },
            { type: 'head' },
            { type: 'started', callIds: [] },
            null,
          ];
          for (const record of bad) {
            await expect(store.append(lease, [good, record as SessionRecord]), JSON.stringify(record)).rejects.toSatisfy(
              InvalidRecordError.isInstance,
            );
          }
          await store.release(lease);
          expect((await store.read('s8')).records).toEqual([]);
        }));

      it('keeps its own copy: changing a record appended or read changes nothing stored', () =>
        withStore(async (store) => {
          const turn = say('user', 'original');
          const made = new SessionGraph('s9');
          const record = node(made.append(turn, 1));
          const lease = await store.acquire('s9');
          await store.append(lease, [record]);
          await store.release(lease);
          (record as { node: SessionNode }).node.turn.blocks[0] = { kind: 'text', text: 'changed by the writer' };
          const read = await store.read('s9');
          ((read.records[0] as { node: SessionNode }).node.turn.blocks[0] as { text: string }).text = 'changed by a reader';
          const again = await loadSession(store, 's9');
          expect(again.node(again.leaf!)!.turn).toEqual(say('user', 'original'));
        }));

      it('says what each append wrote, and a read reports exactly those records and bytes, when it can say', () =>
        withStore(async (store) => {
          const made = new SessionGraph('s10');
          const a = made.append(say('user', 'a'), 1);
          const b = made.append(say('assistant', 'b'), 2);
          const lease = await store.acquire('s10');
          const first = await store.append(lease, [node(a), node(b)]);
          made.branchFrom(b.id);
          const c = made.append(say('user', 'c ünïcode'), 3);
          const second = await store.append(lease, [node(c), { type: 'head', leaf: a.id }]);
          await store.release(lease);
          if (first === undefined || second === undefined) return;
          expect(first.records).toBeGreaterThanOrEqual(2);
          expect(second.records).toBeGreaterThanOrEqual(1);
          const { report } = await store.read('s10');
          expect(report.records).toBe(first.records + second.records);
          expect(report.bytes).toBe(first.bytes + second.bytes);
        }));

      it('serves a live path that resumes as a whole read does and loads the rest when asked', () =>
        withStore(async (store) => {
          const writer = await SessionWriter.open(store, 's11');
          const old = writer.append(say('user', 'old question'), 1);
          writer.append(say('assistant', 'old answer'), 2, { usage, model: 'claude-test' });
          const kept = writer.append(say('user', 'kept'), 3);
          writer.append(say('assistant', 'kept too'), 4);
          writer.append(say('user', '[condensed earlier context] they talked'), 5, { condenses: { firstKept: kept.id } });
          const call: Turn = { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'call-9', name: 'shell', input: {} }] };
          writer.append(call, 6, { usage, model: 'claude-test' });
          writer.markStarted(['call-9']);
          await writer.close();

          const live = await loadSessionWithReport(store, 's11');
          const all = await loadSessionWithReport(store, 's11', { whole: true });
          expect(all.graph.whole).toBe(true);
          expect(live.graph.leaf).toBe(all.graph.leaf);
          expect(live.graph.resume(live.graph.leaf!)).toEqual(all.graph.resume(all.graph.leaf!));
          expect(live.graph.startsOf('call-9')).toBe(1);
          expect(live.graph.usageTotal()).toEqual(all.graph.usageTotal());
          expect(live.report).toMatchObject({ skipped: [], orphans: [], truncatedTail: false, leafFallback: null });
          await live.graph.loadWhole();
          expect(live.graph.size).toBe(6);
          expect(live.graph.pathTo(live.graph.leaf!)[0]).toEqual(old.turn);
        }));
    });

    describe('a SessionWriter on top', () => {
      it('appends what the graph gained, puts the records back when an append fails, and writes them with the next persist', () =>
        withStore(async (raw) => {
          for (const mode of ['before', 'after'] as const) {
            const id = `w-${mode}`;
            const { store, failNext } = watched(raw);
            const writer = await SessionWriter.open(store, id);
            const a = writer.append(say('user', 'a'), 1);
            await writer.persist();
            writer.append(say('assistant', 'b'), 2);
            writer.markStarted(['call-1']);
            writer.graph.branchFrom(a.id);
            failNext(mode);
            await expect(writer.persist()).rejects.toThrow(/connection dropped/);
            expect(writer.hasPending).toBe(true);
            const c = writer.append(say('assistant', 'c'), 3);
            await writer.close();
            expect(writer.hasPending).toBe(false);

            const back = await whole(raw, id);
            expect(back.size, mode).toBe(3);
            expect(back.leaf, mode).toBe(c.id);
            expect(back.children(a.id), mode).toHaveLength(2);
            // Written once, or twice when the failed append had landed: a start may count twice, never zero times.
            expect(back.startsOf('call-1'), mode).toBe(mode === 'before' ? 1 : 2);
          }
        }));

      it('writes a head for a leaf moved by itself, and nothing at all when nothing changed', () =>
        withStore(async (raw) => {
          const { store, appended } = watched(raw);
          const writer = await SessionWriter.open(store, 'w2');
          const a = writer.append(say('user', 'a'), 1);
          const b = writer.append(say('assistant', 'b'), 2);
          await writer.persist();
          expect(appended).toEqual([[node(a), node(b), { type: 'head', leaf: b.id }]]);
          await writer.persist();
          writer.graph.branchFrom(a.id);
          await writer.close();
          expect(appended).toEqual([[node(a), node(b), { type: 'head', leaf: b.id }], [{ type: 'head', leaf: a.id }]]);
          expect((await loadSession(raw, 'w2')).leaf).toBe(a.id);
        }));

      it('records a trip as a head carrying it, which a later append or branch clears for good', () =>
        withStore(async (raw) => {
          const { store, appended } = watched(raw);
          const writer = await SessionWriter.open(store, 'w3');
          const a = writer.append(say('user', 'a'), 1);
          const b = writer.append(say('assistant', 'b'), 2);
          writer.append(say('user', 'tripped prompt'), 3);
          writer.trip(b.id, trip('deny', 4));
          expect([writer.graph.leaf, writer.graph.tripped]).toEqual([b.id, trip('deny', 4)]);
          await writer.close();
          expect(appended.at(-1)?.at(-1)).toEqual({ type: 'head', leaf: b.id, tripped: trip('deny', 4) });
          expect(() => writer.trip('no-such-node', trip('deny', 5))).toThrow(UnknownNodeError);

          const again = await SessionWriter.open(store, 'w3');
          expect([again.graph.leaf, again.graph.tripped]).toEqual([b.id, trip('deny', 4)]);
          // Opening and closing writes nothing: the trip stands until the session moves on.
          await again.close();
          expect((await loadSession(raw, 'w3')).tripped).toEqual(trip('deny', 4));

          const next = await SessionWriter.open(store, 'w3');
          next.append(say('user', 'next prompt'), 6);
          await next.close();
          expect((await loadSession(raw, 'w3')).tripped).toBeUndefined();
          const branched = await SessionWriter.open(store, 'w3');
          branched.trip(null, trip('size', 7));
          await branched.persist();
          expect((await loadSession(raw, 'w3')).tripped).toEqual(trip('size', 7));
          branched.graph.branchFrom(a.id);
          await branched.close();
          const back = await loadSession(raw, 'w3');
          expect([back.leaf, back.tripped]).toEqual([a.id, undefined]);
        }));
    });

    describe('a conductor on top', () => {
      it('runs persist, a second agent resumes, branches and condenses over the same store', () =>
        withStore(async (store) => {
          const replies = ['first answer', 'second answer', 'Summary: they talked.', 'third answer'];
          const invoke: ModelInvoker = async () => ({ turn: say('assistant', replies.shift()!), stopReason: 'end_turn' });
          // Long enough that the summary is shorter than what it replaces: condensation refuses to grow the context.
          const one = `one ${'words '.repeat(100)}`;
          const first = createAgent({ model: 'm', sessionId: 'convo', compaction: { keepRecent: 2 } }, { invokeModel: invoke, store });
          await first.submit(one);
          await first.submit('two');
          await first.close();

          const second = createAgent({ model: 'm', compaction: { keepRecent: 2 } }, { invokeModel: invoke, store });
          expect((await second.resume('convo')).messages).toHaveLength(4);
          const condensed = await second.condense();
          expect(condensed.compacted?.removed).toBe(2);
          expect(condensed.snapshot.messages).toHaveLength(3);
          const graph = await whole(store, 'convo');
          const firstAnswer = graph.nodesTo(graph.leaf!).find((n) => text(n.turn) === 'first answer')!;
          const branched = await second.branchFrom(firstAnswer.id);
          expect(branched.messages.map(text)).toEqual([one, 'first answer']);
          await expect(second.branchFrom('f'.repeat(64))).rejects.toSatisfy(UnknownNodeError.isInstance);
          await second.submit('three');
          await second.close();

          const after = await whole(store, 'convo');
          expect(after.children(firstAnswer.id)).toHaveLength(2);
          expect(after.resume(after.leaf!).map(text)).toEqual([one, 'first answer', 'three', 'third answer']);
        }));

      it('survives a failed append: the run faults with store_error, and the next run appends what it kept', () =>
        withStore(async (raw) => {
          const { store, failNext } = watched(raw);
          const agent = createAgent({ model: 'm', sessionId: 'flaky' }, { invokeModel: answering, store });
          // The step's append fails, and so does the one the run makes as it ends.
          failNext('before', 2);
          const fault = await agent.submit('one').then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(fault).toSatisfy(RunFault.isInstance);
          expect(fault).toMatchObject({ kind: 'store_error' });
          expect((await loadSession(raw, 'flaky')).leaf).toBeNull();
          await agent.submit('two');
          await agent.close();

          const resumed = createAgent({ model: 'm' }, { invokeModel: answering, store: raw });
          expect((await resumed.resume('flaky')).messages.map(text)).toEqual(['one', 'two', 'answer to two']);
          await resumed.close();
        }));

      it('fences: a writer whose lease was lost is refused, writes nothing more, and the new holder keeps its history', () =>
        withStore(async (raw) => {
          const { store, leases } = watched(raw);
          const stale = createAgent({ model: 'm', sessionId: 'taken' }, { invokeModel: answering, store });
          await stale.submit('kept');
          const busy = createAgent({ model: 'm', sessionId: 'taken' }, { invokeModel: answering, store: raw });
          await expect(busy.submit('refused')).rejects.toMatchObject({ kind: 'store_error' });

          // The lease is lost behind the first agent's back (it stalled past it, say), and another writer takes the session.
          await raw.release(leases[0]);
          const next = createAgent({ model: 'm' }, { invokeModel: answering, store: raw });
          await next.resume('taken');
          const lost = await stale.submit('lost').then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(lost).toMatchObject({ kind: 'store_error' });
          expect(causes(lost).some(SessionLeaseLostError.isInstance)).toBe(true);
          await next.submit('from the new writer');
          await next.close();
          // Its records can never be written under the lost lease: closing says so once, and lets go.
          await expect(stale.close()).rejects.toSatisfy(SessionLeaseLostError.isInstance);
          await stale.close();

          const history = await whole(raw, 'taken');
          expect(history.resume(history.leaf!).map(text)).toEqual([
            'kept',
            'answer to kept',
            'from the new writer',
            'answer to from the new writer',
          ]);
          expect(history.size).toBe(4);
        }));
    });
  });
}
