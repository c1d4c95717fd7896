import { afterAll, describe, expect, it } from 'vitest';
import type { Turn } from '../../src/runtime/contract/index.js';
import { SessionGraph, SessionLockedError, InvalidTurnError } from '../../src/runtime/store/index.js';
import {
  migratePostgres,
  PostgresOptionsError,
  PostgresSchemaBehindError,
  PostgresSessionStore,
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

  it('never migrates by itself: a store whose schema is behind says so, and works once migrated', async () => {
    const schema = freshSchema('behind');
    const store = make({ schema });
    await expect(store.loadSession('s')).rejects.toSatisfy(PostgresSchemaBehindError.isInstance);
    await expect(store.openSession('s')).rejects.toThrow(/indusagi db migrate/);
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
    const graph = await store.openSession('ids');
    const a = graph.append(say('user', 'a'), 1);
    const b = graph.append(say('assistant', 'b'), 2);
    await store.persist(graph);
    // What a retry after an unknown commit does: the same records written again.
    graph.restoreUnsaved([{ type: 'node', node: a }, { type: 'node', node: b }, { type: 'head', leaf: b.id }]);
    const again = await store.persist(graph);
    expect(again.records).toBe(1); // the head only: both nodes were already there
    await store.closeSession('ids');
    const back = await store.loadSession('ids');
    expect(back.size).toBe(2);
    expect(back.leaf).toBe(b.id);
  });

  describe('the writer lease', () => {
    it('a second store (another machine) is refused with the holder named, and gets the session once it is closed', async () => {
      const schema = freshSchema('lease');
      const first = await migrated({ schema });
      const second = make({ schema });
      const graph = await first.openSession('shared');
      graph.append(say('user', 'from the first'), 1);
      const refused = await second.openSession('shared').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SessionLeaseHeldError);
      expect(SessionLockedError.isInstance(refused)).toBe(true);
      expect((refused as SessionLeaseHeldError).holder).toBe(first.holder);
      expect((refused as Error).message).toContain(first.holder);
      await first.closeSession('shared');
      const taken = await second.openSession('shared');
      expect(texts(taken)).toEqual(['from the first']);
      await second.closeSession('shared');
    });

    it('is renewed while held: a session open longer than its lease stays its holder\'s', async () => {
      const schema = freshSchema('renew');
      const holder = await migrated({ schema, leaseMs: 600, renewMs: 150 });
      const other = make({ schema, leaseMs: 600 });
      const graph = await holder.openSession('kept');
      await sleep(1500);
      await expect(other.openSession('kept')).rejects.toSatisfy(SessionLeaseHeldError.isInstance);
      graph.append(say('user', 'still mine'), 1);
      await holder.persist(graph);
      await holder.closeSession('kept');
    });

    it('fences a writer that stalled past its lease: another takes over, and the first writer\'s next write is refused and lands nothing', async () => {
      const schema = freshSchema('fence');
      // Renewal far slower than the lease: this writer stalls, as a paused process would.
      const stalled = await migrated({ schema, leaseMs: 300, renewMs: 299 });
      const next = make({ schema, leaseMs: 30_000 });
      const old = await stalled.openSession('fenced');
      old.append(say('user', 'before the stall'), 1);
      await stalled.persist(old);
      (stalled as unknown as { sessions: Map<string, { timer: NodeJS.Timeout }> }).sessions.forEach((s) => clearInterval(s.timer));
      await sleep(600);

      const taken = await next.openSession('fenced');
      expect(texts(taken)).toEqual(['before the stall']);
      taken.append(say('assistant', 'the new writer'), 2);
      await next.persist(taken);

      old.append(say('assistant', 'the stalled writer'), 3);
      const refused = await stalled.persist(old).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SessionFencedError);
      expect(refused).toMatchObject({ kind: 'session_fenced', epoch: 1, currentEpoch: 2, holder: next.holder });
      expect(old.hasUnsaved).toBe(true); // kept, not dropped
      await expect(stalled.closeSession('fenced')).rejects.toSatisfy(SessionFencedError.isInstance);

      await next.closeSession('fenced');
      const history = await next.loadSession('fenced');
      expect(history.size).toBe(2);
      expect(texts(history)).toEqual(['before the stall', 'the new writer']);
      expect(history.tips()).toHaveLength(1);
    });
  });

  it('confines every read and write to its tenant, whatever the session id', async () => {
    const schema = freshSchema('ten');
    const acme = await migrated({ schema, tenant: 'acme' });
    const globex = make({ schema, tenant: "globex' OR '1'='1" });
    const plain = make({ schema });
    const id = "s'; DELETE FROM sessions; --";
    const graph = await acme.openSession(id);
    graph.append(say('user', 'acme secret'), 1);
    await acme.closeSession(id);

    expect((await globex.loadSession(id)).leaf).toBeNull();
    expect((await plain.loadSession(id)).leaf).toBeNull();
    // The same id in another tenant is another session: its own lease, its own nodes.
    const theirs = await globex.openSession(id);
    expect(theirs.leaf).toBeNull();
    theirs.append(say('user', 'globex data'), 1);
    await globex.closeSession(id);
    expect(texts(await acme.loadSession(id))).toEqual(['acme secret']);
    expect(texts(await globex.loadSession(id))).toEqual(['globex data']);
  });

  it('round-trips hostile content: NUL bytes, lone surrogates, SQL and JSON syntax, a huge turn', async () => {
    const store = await migrated();
    const id = `x'"); DROP TABLE sessions; -- $1 %s ✓ \u00e9`;
    const graph = await store.openSession(id);
    const nasty = `nul\u0000byte \ud800 lone, '); DROP SCHEMA public CASCADE; -- {"type":"head"} \\u0000`;
    const huge = 'y'.repeat(8 * 1024 * 1024);
    graph.append(say('user', nasty), 1);
    graph.append(say('assistant', huge), 2);
    await store.closeSession(id);
    const back = await store.loadSession(id);
    expect(texts(back)).toEqual([nasty, huge]);
    const live = await (await migratedLike(store, { livePathAbove: 0 })).loadSession(id);
    expect(texts(live)).toEqual([nasty, huge]);
    expect(() => graph.append(say('user', 'x'), Number.NaN)).toThrow(InvalidTurnError);
  });

  const migratedLike = async (store: PostgresSessionStore, options: PostgresSessionStoreOptions) => make({ schema: store.schema, tenant: store.tenant, ...options });

  it('resumes a large session from its live path: the nodes since the latest condensation and its kept tail', async () => {
    const schema = freshSchema('live');
    const writer = await migrated({ schema });
    const graph = await writer.openSession('long');
    for (let i = 0; i < 300; i++) graph.append(say(i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`), i);
    const kept = graph.append(say('user', 'kept'), 300);
    graph.append(say('assistant', 'kept too'), 301);
    graph.append(say('user', '[summary]'), 302, { condenses: { firstKept: kept.id } });
    graph.append(say('assistant', 'after'), 303);
    graph.markStarted(['call-1']);
    await writer.closeSession('long');

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
