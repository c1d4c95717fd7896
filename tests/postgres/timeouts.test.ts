// Statement and lock limits: a store's statement waiting on a session row another connection holds
// (or running too long) is cancelled by the server and fails with PostgresTimeoutError, so a run is
// never held by the database. Every wait here ends on the server's own limit, not on a timer of ours.
import { afterAll, describe, expect, it } from 'vitest';
import type { Turn } from '../../src/runtime/contract/index.js';
import { SessionWriter } from '../../src/runtime/store/index.js';
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  migratePostgres,
  PostgresMemoryStore,
  PostgresOptionsError,
  PostgresSessionStore,
  PostgresTimeoutError,
  type PostgresSessionStoreOptions,
} from '../../src/postgres/index.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const say = (text: string): Turn => ({ role: 'user', blocks: [{ kind: 'text', text }] });

describe.skipIf(postgresUrl === undefined)('PostgreSQL statement and lock limits', () => {
  const pool = testPool({ max: 6 });
  const schema = freshSchema('limits');
  const stores: PostgresSessionStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });
  const make = async (options: PostgresSessionStoreOptions, own: boolean) => {
    await migratePostgres({ pool }, { schema });
    const store = new PostgresSessionStore(own ? { connectionString: postgresUrl! } : { pool }, { schema, ...options });
    stores.push(store);
    return store;
  };

  /** Runs `work` while another connection holds the session's row (or, with `table`, the whole table) locked. */
  async function whileHeld<T>(session: string, work: () => Promise<T>, table = false): Promise<T> {
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      if (table) await holder.query(`LOCK TABLE "${schema}".sessions IN ACCESS EXCLUSIVE MODE`);
      else await holder.query(`SELECT 1 FROM "${schema}".sessions WHERE id = $1 FOR UPDATE`, [session]);
      return await work();
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  }

  it('fails a write waiting on a session row held FOR UPDATE with PostgresTimeoutError, and loses nothing', async () => {
    const store = await make({ lockTimeoutMs: 200 }, true);
    const session = await SessionWriter.open(store, 'held');
    session.append(say('first'), 1);
    await session.persist();
    session.append(say('second'), 2);
    const error = await whileHeld('held', () =>
      session.persist().then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(error).toBeInstanceOf(PostgresTimeoutError);
    expect(error).toMatchObject({ kind: 'postgres_store', code: '55P03', limit: 'lock', ms: 200 });
    // The write was rolled back and stays pending with the writer: the next persist writes it.
    await session.persist();
    await session.close();
    expect((await store.loadSession('held')).resume((await store.loadSession('held')).leaf!).length).toBe(2);
  });

  it('cancels a statement past statementTimeoutMs the same way, naming that limit', async () => {
    const store = await make({ statementTimeoutMs: 200, lockTimeoutMs: 0 }, true);
    const session = await SessionWriter.open(store, 'slow');
    session.append(say('only'), 1);
    const error = await whileHeld('slow', () =>
      session.persist().then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(error).toBeInstanceOf(PostgresTimeoutError);
    expect(error).toMatchObject({ code: '57014', limit: 'statement', ms: 200 });
    await session.persist();
    await session.close();
  });

  it('limits the transactions of a pool the store does not own, such as a load', async () => {
    const writer = await make({}, false);
    const session = await SessionWriter.open(writer, 'borrowed');
    session.append(say('kept'), 1);
    await session.close();
    const reader = await make({ lockTimeoutMs: 200 }, false);
    const error = await whileHeld(
      'borrowed',
      () =>
        reader.loadSession('borrowed').then(
          () => undefined,
          (e: unknown) => e,
        ),
      true,
    );
    expect(error).toBeInstanceOf(PostgresTimeoutError);
    expect(error).toMatchObject({ limit: 'lock' });
    expect((await reader.loadSession('borrowed')).leaf).toBe(session.graph.leaf);
  });

  it('limits a resume that reads the live path in windows, on a pool the store owns or not', async () => {
    // Above livePathAbove the live path is read in several statements that need no snapshot: on a pool the
    // store owns its connections carry the limits, on a borrowed one the reads still run in a transaction.
    const writer = await make({}, false);
    const session = await SessionWriter.open(writer, 'windowed');
    for (let i = 0; i < 6; i++) session.append(say(`turn ${i}`), i + 1);
    await session.close();
    for (const own of [true, false]) {
      const reader = await make({ lockTimeoutMs: 200, livePathAbove: 2 }, own);
      const error = await whileHeld(
        'windowed',
        () =>
          reader.loadSession('windowed').then(
            () => undefined,
            (e: unknown) => e,
          ),
        true,
      );
      expect(error).toBeInstanceOf(PostgresTimeoutError);
      expect(error).toMatchObject({ limit: 'lock' });
      const graph = await reader.loadSession('windowed');
      expect([graph.leaf, graph.resume(graph.leaf!).length]).toEqual([session.graph.leaf, 6]);
    }
  });

  it('has documented defaults and refuses limits that are not whole milliseconds', () => {
    expect([DEFAULT_STATEMENT_TIMEOUT_MS, DEFAULT_LOCK_TIMEOUT_MS]).toEqual([30_000, 5_000]);
    for (const bad of [-1, 1.5, '100', Number.NaN, 2 ** 31]) {
      expect(() => new PostgresSessionStore({ pool }, { statementTimeoutMs: bad as number })).toThrow(PostgresOptionsError);
      expect(() => new PostgresMemoryStore({ pool }, { lockTimeoutMs: bad as number })).toThrow(PostgresOptionsError);
    }
    expect(() => new PostgresSessionStore({ pool }, { statementTimeoutMs: 0, lockTimeoutMs: 0 })).not.toThrow();
  });
});
