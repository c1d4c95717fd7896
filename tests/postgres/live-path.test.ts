// Resuming a PostgreSQL session from its live path: read in windows of the write order walking back from
// the leaf, jumping over history a branch left, handing over to the one-statement walk when other
// branches crowd the windows. Each shape is checked against a whole read of the same session, and the
// statements the store ran say which way it went. The window statements' plans are checked on a table
// PostgreSQL has no statistics for in live-path-plan.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import type { Turn } from '../../src/runtime/contract/index.js';
import { SessionWriter, type SessionGraph } from '../../src/runtime/store/index.js';
import { PostgresSessionStore } from '../../src/postgres/index.js';
import type { ClientLike, PoolLike, PreparedQuery } from '../../src/postgres/driver.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });
const texts = (graph: SessionGraph) => graph.resume(graph.leaf!).map((t) => (t.blocks[0] as { text: string }).text);

/** The statement keys a pool and its clients ran (`indusagi_<key>_<hash>`), in order, and how many transactions began. */
function recording(pool: PoolLike): { pool: PoolLike; ran: string[]; began: { count: number } } {
  const ran: string[] = [];
  const began = { count: 0 };
  const note = (text: string | PreparedQuery) => {
    if (typeof text === 'object') ran.push(text.name.split('_')[1]);
    else if (text.startsWith('BEGIN')) began.count++;
  };
  const wrap = (client: ClientLike): ClientLike => ({
    query: (text, values) => (note(text), client.query(text, values)),
    release: (error) => client.release(error),
  });
  return {
    ran,
    began,
    pool: {
      query: (text, values) => (note(text), pool.query(text, values)),
      connect: async () => wrap(await pool.connect()),
      end: async () => {},
    },
  };
}
const windows = (statements: string[]) => statements.filter((key) => key === 'liveStart' || key === 'nodesBefore').length;

describe.skipIf(postgresUrl === undefined)('PostgresSessionStore resuming from the live path', () => {
  const pool = testPool({ max: 4 });
  const stores: PostgresSessionStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });

  /** A store on a fresh schema, and a reader of it (live path above 100 nodes) that records its statements. */
  async function fresh() {
    const schema = freshSchema('walk');
    const writer = new PostgresSessionStore({ pool }, { schema });
    stores.push(writer);
    await writer.migrate();
    const recorded = recording(pool);
    const reader = new PostgresSessionStore({ pool: recorded.pool }, { schema, livePathAbove: 100 });
    stores.push(reader);
    return { writer, reader, ran: recorded.ran, began: recorded.began };
  }

  /** The live-path load and a whole load of the same session: the same leaf and context. */
  async function both(reader: PostgresSessionStore, ran: string[], id: string) {
    ran.length = 0;
    const live = await reader.loadSession(id);
    const statements = [...ran];
    const whole = await reader.loadSession(id, { whole: true });
    expect(live.whole).toBe(false);
    expect(live.leaf).toBe(whole.leaf);
    expect(texts(live)).toEqual(texts(whole));
    return { live, statements };
  }

  it('reads a smaller session whole, and finds an empty one, in one transaction on a pool it was given', async () => {
    const { writer, reader, ran, began } = await fresh();
    const session = await SessionWriter.open(writer, 'short');
    for (let i = 0; i < 6; i++) session.append(say(i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`), i);
    await session.close();

    ran.length = 0;
    began.count = 0;
    const live = await reader.loadSession('short');
    // The session's row comes with the first statement: its nodes and starts follow in the same snapshot.
    expect(ran).toEqual(['liveStart', 'allNodes', 'allStarts']);
    expect(began.count).toBe(1);
    const whole = await reader.loadSession('short', { whole: true });
    expect(live.whole).toBe(true);
    expect(live.leaf).toBe(whole.leaf);
    expect(texts(live)).toEqual(texts(whole));

    ran.length = 0;
    began.count = 0;
    const none = await reader.loadSession('never-written');
    expect(ran).toEqual(['liveStart']);
    expect(began.count).toBe(1);
    expect(none.leaf).toBeNull();
    expect(none.size).toBe(0);
  });

  it('reads a context written in order in a few windows, each wider than the last', async () => {
    const { writer, reader, ran } = await fresh();
    const session = await SessionWriter.open(writer, 'long');
    for (let i = 0; i < 3_000; i++) {
      session.append(say(i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`), i);
      if (i % 100 === 99) await session.persist();
    }
    await session.close();

    const { live, statements } = await both(reader, ran, 'long');
    expect(texts(live)).toHaveLength(3_000);
    // 256 wide with the session's row, then 1,024 and 4,096: three range scans for 3,000 turns, and no
    // walk node by node.
    expect(statements.slice(0, 3)).toEqual(['liveStart', 'nodesBefore', 'nodesBefore']);
    expect(windows(statements)).toBe(3);
    expect(statements).not.toContain('livePath');
  });

  it('jumps over the history a branch left, straight to the node the context goes on from', async () => {
    const { writer, reader, ran } = await fresh();
    const session = await SessionWriter.open(writer, 'branched');
    const early: string[] = [];
    for (let i = 0; i < 2_000; i++) {
      const node = session.append(say(i % 2 === 0 ? 'user' : 'assistant', `old ${i}`), i);
      if (i < 6) early.push(node.id);
      if (i % 200 === 199) await session.persist();
    }
    session.graph.branchFrom(early[5]);
    for (let i = 0; i < 10; i++) session.append(say(i % 2 === 0 ? 'user' : 'assistant', `new ${i}`), 10_000 + i);
    await session.close();

    const { live, statements } = await both(reader, ran, 'branched');
    expect(texts(live)).toEqual([
      ...['old 0', 'old 1', 'old 2', 'old 3', 'old 4', 'old 5'],
      ...Array.from({ length: 10 }, (_, i) => `new ${i}`),
    ]);
    // The new turns, then one window from the branch point: the 1,994 turns left behind are never read.
    expect(windows(statements)).toBe(2);
    expect(statements).not.toContain('livePath');
  });

  it('hands over to the one-statement walk when the windows are mostly other branches', async () => {
    const { writer, reader, ran } = await fresh();
    const session = await SessionWriter.open(writer, 'regenerated');
    // Every answer regenerated nine times: the context keeps one of each, the windows hold all nine.
    for (let i = 0; i < 120; i++) {
      const question = session.append(say('user', `question ${i}`), 10 * i);
      for (let take = 0; take < 9; take++) {
        session.graph.branchFrom(question.id);
        session.append(say('assistant', `answer ${i} take ${take}`), 10 * i + 1 + take);
      }
      await session.persist();
    }
    await session.close();

    const { live, statements } = await both(reader, ran, 'regenerated');
    expect(texts(live)).toHaveLength(240);
    expect(texts(live).at(-1)).toBe('answer 119 take 8');
    expect(statements).toContain('livePath');
    expect(windows(statements)).toBe(1);
  });

  it('reports a context cut by a missing node, as the whole read does, instead of reading on', async () => {
    const { writer, reader } = await fresh();
    const session = await SessionWriter.open(writer, 'cut');
    const nodes = Array.from({ length: 400 }, (_, i) => session.append(say(i % 2 === 0 ? 'user' : 'assistant', `turn ${i}`), i));
    await session.close();
    await pool.query(`DELETE FROM "${reader.schema}".session_nodes WHERE id = $1`, [nodes[200].id]);

    await expect(reader.loadSession('cut')).rejects.toThrow(new RegExp(`node ${nodes[200].id} is missing`));
  });
});
