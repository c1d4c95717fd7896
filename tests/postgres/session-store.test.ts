import { afterAll, describe, expect, it } from 'vitest';
import type { Turn } from '../../src/runtime/contract/index.js';
import { SessionGraph, SessionLeaseLostError, SessionLockedError, SessionWriter, InvalidTurnError } from '../../src/runtime/store/index.js';
import {
  migratePostgres,
  PostgresOptionsError,
  PostgresSchemaBehindError,
  PostgresSessionStore,
  PostgresStoreError,
  SessionFencedError,
  SessionLeaseHeldError,
  type PostgresSessionStoreOptions,
} from '../../src/postgres/index.js';
import { sessionStoreContract } from '../runtime/store/session-store-contract.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });
const texts = (graph: SessionGraph) => graph.resume(graph.leaf!).map((t) => (t.blocks[0] as { text: string }).text);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.skipIf(postgresUrl === undefined)('PostgresSessionStore', () => {
  const pool = testPool({ max: 8 });
  const stores: PostgresSessionStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });
  const make = (options: PostgresSessionStoreOptions = {}) => {
    const store = new PostgresSessionStore({ pool }, options);
    stores.push(store);
    return store;
  };
  const migrated = async (options: PostgresSessionStoreOptions = {}) => {
    const store = make({ schema: freshSchema('ses'), ...options });
    await store.migrate();
    return store;
  };

  sessionStoreContract('PostgresSessionStore', async () => ({ store: await migrated(), close: async () => {} }));
  sessionStoreContract('PostgresSessionStore, every session read from its live path', async () => ({
    store: await migrated({ livePathAbove: 0 }),
    close: async () => {},
  }));

  it('never migrates by itself: a store whose schema is behind says so, and works once migrated', async () => {
    const schema = freshSchema('behind');
    const store = make({ schema });
    await expect(store.loadSession('s')).rejects.toSatisfy(PostgresSchemaBehindError.isInstance);
    await expect(store.acquire('s')).rejects.toThrow(/indusagi db migrate/);
    const applied = await migratePostgres({ pool }, { schema });
    expect(applied.to).toBeGreaterThanOrEqual(2);
    expect((await store.loadSession('s')).leaf).toBeNull();
  });

  it('refuses unusable options before connecting', () => {
    expect(() => new PostgresSessionStore({ pool }, { leaseMs: -1 })).toThrow(PostgresOptionsError);
    expect(() => new PostgresSessionStore({ pool }, { leaseMs: 1000, renewMs: 1000 })).toThrow(PostgresOptionsError);
    expect(() => new PostgresSessionStore({ pool }, { tenant: 'a\u0000b' })).toThrow(PostgresOptionsError);
    expect(() => new PostgresSessionStore({ pool }, { schema: 'x"; DROP TABLE y; --' })).toThrow(PostgresOptionsError);
  });

  it('keeps content-addressed ids: a retried write of stored nodes adds nothing, and resume reads the same context', async () => {
    const store = await migrated();
    const made = new SessionGraph('ids');
    const a = made.append(say('user', 'a'), 1);
    const b = made.append(say('assistant', 'b'), 2);
    const records = [
      { type: 'node' as const, node: a },
      { type: 'node' as const, node: b },
      { type: 'head' as const, leaf: b.id },
    ];
    const lease = await store.acquire('ids');
    expect(await store.append(lease, records)).toMatchObject({ records: 2 });
    // What a retry after an unknown commit does: the same records written again.
    const again = await store.append(lease, records);
    expect(again).toEqual({ records: 0, bytes: 0 }); // both nodes were already there, and the leaf with them
    await store.release(lease);
    const back = await store.loadSession('ids');
    expect(back.size).toBe(2);
    expect(back.leaf).toBe(b.id);
  });

  it('steps that only add nodes leave the session row alone, and every reader still sees them: leaf, totals, usage, listing', async () => {
    const schema = freshSchema('fold');
    const writer = await migrated({ schema });
    const reader = make({ schema });
    const session = await SessionWriter.open(writer, 'steps');
    const graph = session.graph;
    let bytes = 0;
    for (let i = 0; i < 75; i++) {
      const billed =
        i % 2 === 1 ? { usage: { inputTokens: 100 + i, outputTokens: i, cacheWriteTokens: 1, cacheReadTokens: 2 } } : undefined;
      session.append(say(i % 2 === 0 ? 'user' : 'assistant', `step ${i}`), i, billed);
      bytes += (await session.persist())!.bytes;
      if (i % 10 === 4 || i === 74) {
        const seen = await reader.loadSession('steps');
        expect(seen.leaf).toBe(graph.leaf);
        expect(seen.size).toBe(i + 1);
        expect(seen.usageTotal()).toEqual(graph.usageTotal());
        const [listed] = await reader.listSessions();
        expect(listed).toMatchObject({ id: 'steps', leaf: graph.leaf, turns: i + 1, size: bytes, title: 'step 0' });
      }
    }
    // Readers add up only the nodes the row has not taken in yet: a bounded few, never the session.
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${schema}".session_nodes n JOIN "${schema}".sessions s ON s.tenant = n.tenant AND s.id = n.session WHERE n.seq > s.folded_seq`,
    );
    expect(rows[0].n).toBeLessThanOrEqual(32);
    await session.close();
    expect(texts(await reader.loadSession('steps', { whole: true }))).toHaveLength(75);
  });

  it('a step whose node is stored already (off the live path it was opened with) moves the leaf to it', async () => {
    const schema = freshSchema('again');
    const first = await migrated({ schema });
    const writer = await SessionWriter.open(first, 'again');
    writer.append(say('user', 'root'), 1);
    const a = writer.append(say('assistant', 'a'), 2);
    const b = writer.append(say('user', 'b'), 3);
    writer.graph.branchFrom(a.id);
    await writer.close();

    // Opened from its live path (root, a): b is not in memory, so appending b's turn again makes a node record.
    const second = make({ schema, livePathAbove: 0 });
    const live = await SessionWriter.open(second, 'again');
    expect(live.graph.leaf).toBe(a.id);
    expect(live.append(say('user', 'b'), 3).id).toBe(b.id);
    expect((await live.persist())!.records).toBe(0);
    await live.close();
    const back = await make({ schema }).loadSession('again');
    expect(back.leaf).toBe(b.id);
    expect(back.size).toBe(3);
  });

  describe('the writer lease', () => {
    it('a second store (another machine) is refused with the holder named, and gets the session once it is closed', async () => {
      const schema = freshSchema('lease');
      const first = await migrated({ schema });
      const second = make({ schema });
      const writer = await SessionWriter.open(first, 'shared');
      writer.append(say('user', 'from the first'), 1);
      const refused = await second.acquire('shared').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SessionLeaseHeldError);
      expect(SessionLockedError.isInstance(refused)).toBe(true);
      expect((refused as SessionLeaseHeldError).holder).toBe(first.holder);
      expect((refused as Error).message).toContain(first.holder);
      await writer.close();
      const taken = await SessionWriter.open(second, 'shared');
      expect(texts(taken.graph)).toEqual(['from the first']);
      await taken.close();
    });

    it("is renewed while held: a session open longer than its lease stays its holder's", async () => {
      const schema = freshSchema('renew');
      const holder = await migrated({ schema, leaseMs: 600, renewMs: 150 });
      const other = make({ schema, leaseMs: 600 });
      const writer = await SessionWriter.open(holder, 'kept');
      await sleep(1500);
      await expect(other.acquire('kept')).rejects.toSatisfy(SessionLeaseHeldError.isInstance);
      writer.append(say('user', 'still mine'), 1);
      await writer.persist();
      await writer.close();
    });

    it("fences a writer that stalled past its lease: another takes over, and the first writer's next write is refused and lands nothing", async () => {
      const schema = freshSchema('fence');
      // Renewal far slower than the lease: this writer stalls, as a paused process would.
      const stalled = await migrated({ schema, leaseMs: 300, renewMs: 299 });
      const next = make({ schema, leaseMs: 30_000 });
      const old = await SessionWriter.open(stalled, 'fenced');
      old.append(say('user', 'before the stall'), 1);
      await old.persist();
      (stalled as unknown as { held: Map<string, { timer: NodeJS.Timeout }> }).held.forEach((s) => clearInterval(s.timer));
      await sleep(600);

      const taken = await SessionWriter.open(next, 'fenced');
      expect(texts(taken.graph)).toEqual(['before the stall']);
      taken.append(say('assistant', 'the new writer'), 2);
      await taken.persist();

      old.append(say('assistant', 'the stalled writer'), 3);
      const refused = await old.persist().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SessionFencedError);
      expect(refused).toSatisfy(SessionLeaseLostError.isInstance);
      expect(refused).toMatchObject({ kind: 'session_fenced', epoch: 1, currentEpoch: 2, holder: next.holder });
      expect(old.hasPending).toBe(true); // kept, not dropped
      await expect(old.close()).rejects.toSatisfy(SessionFencedError.isInstance);

      await taken.close();
      const history = await next.loadSession('fenced');
      expect(history.size).toBe(2);
      expect(texts(history)).toEqual(['before the stall', 'the new writer']);
      expect(history.tips()).toHaveLength(1);
    });
  });

  it('persists of many sessions at once share statements, and a fenced one among them fails alone', async () => {
    const schema = freshSchema('batch');
    const store = await migrated({ schema });
    const ids = Array.from({ length: 12 }, (_, i) => `s${i}`);
    const writers = await Promise.all(ids.map((id) => SessionWriter.open(store, id)));
    // s5 is taken over behind this store's back, as after a stall past its lease.
    await pool.query(`UPDATE "${schema}".sessions SET lease_expires = now() - interval '1 second' WHERE id = 's5'`);
    const other = make({ schema });
    const taken = await SessionWriter.open(other, 's5');
    taken.append(say('user', 'the new writer'), 1);
    await taken.persist();

    const outcomes = await Promise.all(
      writers.map((writer, i) => {
        writer.append(say('user', `first of ${ids[i]}`), 1);
        writer.append(say('assistant', `second of ${ids[i]}`), 2);
        return writer.persist().then(
          (report) => report,
          (error: unknown) => error,
        );
      }),
    );
    outcomes.forEach((outcome, i) => {
      if (i === 5) expect(outcome).toSatisfy(SessionFencedError.isInstance);
      else expect(outcome).toMatchObject({ records: 2 });
    });
    for (const [i, id] of ids.entries()) {
      const stored = await make({ schema }).loadSession(id);
      expect(texts(stored)).toEqual(i === 5 ? ['the new writer'] : [`first of ${id}`, `second of ${id}`]);
    }
    await expect(writers[5].close()).rejects.toSatisfy(SessionFencedError.isInstance);
  });

  it('close() hands back every lease it holds, so another store takes the sessions at once, and names one it could not hand back', async () => {
    const schema = freshSchema('close');
    const closing = make({ schema });
    await closing.migrate();
    const writers = await Promise.all(['a', 'b'].map((id) => SessionWriter.open(closing, id)));
    for (const writer of writers) {
      writer.append(say('user', `kept in ${writer.sessionId}`), 1);
      await writer.persist();
    }
    await closing.close();
    // No waiting for leases to expire: the others were handed back.
    const other = make({ schema });
    for (const id of ['a', 'b']) {
      const writer = await SessionWriter.open(other, id);
      expect(texts(writer.graph)).toEqual([`kept in ${id}`]);
      await writer.close();
    }
    writers[0].append(say('user', 'too late'), 2);
    await expect(writers[0].persist()).rejects.toSatisfy(SessionLeaseLostError.isInstance);

    // A lease the database refuses to take back is named; it is no longer renewed, and expires.
    const failing = make({ schema });
    await failing.acquire('c');
    await pool.query(`ALTER TABLE "${schema}".sessions RENAME TO sessions_away`);
    const error = await failing.close().catch((e: unknown) => e);
    await pool.query(`ALTER TABLE "${schema}".sessions_away RENAME TO sessions`);
    expect(error).toSatisfy(PostgresStoreError.isInstance);
    expect((error as Error).message).toMatch(/could not hand back the lease of session c \(/);
  });

  it('confines every read and write to its tenant, whatever the session id', async () => {
    const schema = freshSchema('ten');
    const acme = await migrated({ schema, tenant: 'acme' });
    const globex = make({ schema, tenant: "globex' OR '1'='1" });
    const plain = make({ schema });
    const id = "s'; DELETE FROM sessions; --";
    const writer = await SessionWriter.open(acme, id);
    writer.append(say('user', 'acme secret'), 1);
    await writer.close();

    expect((await globex.loadSession(id)).leaf).toBeNull();
    expect((await plain.loadSession(id)).leaf).toBeNull();
    // The same id in another tenant is another session: its own lease, its own nodes.
    const theirs = await SessionWriter.open(globex, id);
    expect(theirs.graph.leaf).toBeNull();
    theirs.append(say('user', 'globex data'), 1);
    await theirs.close();
    expect(texts(await acme.loadSession(id))).toEqual(['acme secret']);
    expect(texts(await globex.loadSession(id))).toEqual(['globex data']);
  });

  it('round-trips hostile content: NUL bytes, lone surrogates, SQL and JSON syntax, a huge turn', async () => {
    const store = await migrated();
    const id = `x'"); DROP TABLE sessions; -- $1 %s ✓ \u00e9`;
    const writer = await SessionWriter.open(store, id);
    const nasty = `nul\u0000byte \ud800 lone, '); DROP SCHEMA public CASCADE; -- {"type":"head"} \\u0000`;
    const huge = 'y'.repeat(8 * 1024 * 1024);
    writer.append(say('user', nasty), 1);
    writer.append(say('assistant', huge), 2);
    await writer.close();
    const back = await store.loadSession(id);
    expect(texts(back)).toEqual([nasty, huge]);
    const live = await (await migratedLike(store, { livePathAbove: 0 })).loadSession(id);
    expect(texts(live)).toEqual([nasty, huge]);
    expect(() => writer.append(say('user', 'x'), Number.NaN)).toThrow(InvalidTurnError);
  });

  const migratedLike = async (store: PostgresSessionStore, options: PostgresSessionStoreOptions) =>
    make({ schema: store.schema, tenant: store.tenant, ...options });

  it('resumes a large session from its live path: the nodes since the latest condensation and its kept tail', async () => {
    const schema = freshSchema('live');
    const writer = await migrated({ schema });
    const session = await SessionWriter.open(writer, 'long');
    const graph = session.graph;
    for (let i = 0; i < 300; i++) session.append(say(i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`), i);
    const kept = session.append(say('user', 'kept'), 300);
    session.append(say('assistant', 'kept too'), 301);
    session.append(say('user', '[summary]'), 302, { condenses: { firstKept: kept.id } });
    session.append(say('assistant', 'after'), 303);
    session.markStarted(['call-1']);
    await session.close();

    const reader = make({ schema, livePathAbove: 100 });
    const live = await reader.loadSession('long');
    expect(live.whole).toBe(false);
    expect(texts(live)).toEqual(['[summary]', 'kept', 'kept too', 'after']);
    expect(live.usageTotal()).toEqual(graph.usageTotal());
    await live.loadWhole();
    expect(live.size).toBe(304);
    expect(live.startsOf('call-1')).toBe(1);
  });
});
