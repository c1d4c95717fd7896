import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import {
  openSqliteMemoryStore,
  SqliteEmbedderMismatchError,
  type SqliteMemoryStore,
  type SqliteMemoryStoreOptions,
} from '../../src/memory-sqlite/index.js';
import { MemoryInputError, offlineEmbedder, type GovernedMemoryStore } from '../../src/memory/index.js';
import { memoryStoreContract } from '../memory/store-contract.js';
import { vectorStoreContract } from '../memory/vector-contract.js';
import { hashedEmbedder } from '../memory/hashed-embedder.js';

const root = mkdtempSync(join(tmpdir(), 'indusagi-sqlite-vectors-'));
const opened: SqliteMemoryStore[] = [];
let files = 0;
const freshPath = () => join(root, `store-${++files}.db`);
const open = async (path = freshPath(), options?: SqliteMemoryStoreOptions) => {
  const store = await openSqliteMemoryStore(path, options);
  opened.push(store);
  return store;
};

afterAll(() => {
  for (const store of opened) store.close();
  rmSync(root, { recursive: true, force: true });
});

/** Reads the file as another connection would, with sqlite-vec loaded so its vec0 table can be counted. */
function inspect<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  try {
    sqliteVec.load(db);
    return read(db);
  } finally {
    db.close();
  }
}
const vectorCount = (path: string) =>
  inspect(path, (db) => (db.prepare('SELECT count(*) AS n FROM memory_vectors').get() as { n: number }).n);
const flags = (path: string) =>
  inspect(
    path,
    (db) => db.prepare('SELECT text, embedded FROM memory_records ORDER BY seq').all() as Array<{ text: string; embedded: number }>,
  );

/** A store made with an embedder, seen through the words ranking: the lexical contract must hold unchanged. */
function wordsView(store: GovernedMemoryStore): GovernedMemoryStore {
  return Object.assign(Object.create(store), { search: (q: string, o?: object) => store.search(q, { ...o, ranking: 'words' }) });
}

// Store, governance and ranking contracts, every write also keeping a vector.
memoryStoreContract('openSqliteMemoryStore with an embedder, words ranking', async () =>
  wordsView(await open(freshPath(), { embedder: hashedEmbedder() })),
);

// Recall by meaning needs an embedder that knows meaning: the offline one, an optional peer. It is
// installed in this repository; elsewhere the suite is skipped, except in CI, where it must run.
const offlineInstalled = await import('@energetic-ai/embeddings').then(
  () => true,
  () => false,
);
if (offlineInstalled || process.env.CI) {
  vectorStoreContract('openSqliteMemoryStore', offlineEmbedder(), (embedder) => open(freshPath(), { embedder }));
} else {
  describe.skip('openSqliteMemoryStore: recall by meaning (the offline embedder @energetic-ai/embeddings is not installed)', () => {
    it('needs @energetic-ai/embeddings', () => {});
  });
}

describe('openSqliteMemoryStore with an embedder: the file', () => {
  it('creates the vec0 table sized by the embedder and records the embedder and each record as embedded', async () => {
    const path = freshPath();
    const embedder = hashedEmbedder(48);
    const store = await open(path, { embedder });
    await store.save('The user prefers metric units');
    await store.save('Deploys happen on Fridays');
    expect(
      inspect(path, (db) => ({
        version: db.pragma('user_version', { simple: true }),
        embedder: db.prepare('SELECT id, dimensions FROM memory_embedder').all(),
        sql: (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memory_vectors'").get() as { sql: string }).sql,
      })),
    ).toEqual({
      version: 6,
      embedder: [{ id: 'test/hashed-terms-48', dimensions: 48 }],
      sql: expect.stringContaining('float[48]'),
    });
    expect(flags(path).map((r) => r.embedded)).toEqual([1, 1]);
    expect(vectorCount(path)).toBe(2);
  });

  it('upgrades a version 2 file and backfills its records on the first vector search, once, not at open', async () => {
    const path = freshPath();
    const plain = await open(path);
    await plain.save('I adopted a puppy from the shelter');
    await plain.save('The quarterly tax return is due in April');
    plain.close();
    // Back to the version 2 layout, as a file written before vectors existed.
    const db = new Database(path);
    db.exec(
      'DROP INDEX memory_records_observed; DROP INDEX memory_records_unembedded; ALTER TABLE memory_records DROP COLUMN embedded; DROP TABLE memory_embedder; DROP TABLE working_memory; DROP TABLE memory_vector_copies;',
    );
    db.pragma('user_version = 2');
    db.close();

    const embedder = hashedEmbedder();
    const store = await open(path, { embedder });
    expect(embedder.calls).toEqual([]);
    expect((await store.search('puppy shelter', { ranking: 'words' })).map((r) => r.text)).toEqual(['I adopted a puppy from the shelter']);
    expect(embedder.calls).toEqual([]);
    const [hit] = await store.search('puppy shelter', { k: 1, ranking: 'vector' });
    expect(hit.text).toBe('I adopted a puppy from the shelter');
    await store.search('tax return', { ranking: 'vector' });
    expect(embedder.calls).toEqual([
      ['I adopted a puppy from the shelter', 'The quarterly tax return is due in April'],
      ['puppy shelter'],
      ['tax return'],
    ]);
    expect(flags(path).map((r) => r.embedded)).toEqual([1, 1]);
    expect(vectorCount(path)).toBe(2);
  });

  it('embeds what a store without the embedder saved meanwhile, and keeps no vector it forgot or re-worded', async () => {
    const path = freshPath();
    const embedder = hashedEmbedder();
    const first = await open(path, { embedder });
    const kept = await first.save('Lives in Lisbon near the river');
    const forgotten = await first.save('Parks the car in garage seven');
    const reworded = await first.save('Drinks green tea every morning');
    first.close();

    const plain = await open(path);
    await plain.forget(forgotten.id);
    await plain.update(reworded.id, { text: 'Drinks black coffee every morning' });
    // Takes the seq the forgotten record freed, whose vector the plain store could not remove.
    const added = await plain.save('Plays chess on Sundays');
    plain.close();

    const again = await open(path, { embedder });
    expect(vectorCount(path)).toBe(1);
    expect((await again.search('garage car', { k: 5, ranking: 'vector' })).map((h) => h.id)).not.toContain(forgotten.id);
    expect((await again.search('chess sundays', { k: 1, ranking: 'vector' }))[0].id).toBe(added.id);
    const [coffee] = await again.search('black coffee', { k: 1, ranking: 'vector' });
    expect(coffee).toMatchObject({ id: reworded.id, text: 'Drinks black coffee every morning' });
    expect(coffee.score).toBeGreaterThan(0.5);
    expect((await again.search('green tea', { k: 3, ranking: 'vector' })).find((h) => h.id === reworded.id)?.score ?? 0).toBeLessThan(0.3);
    expect(vectorCount(path)).toBe(3);
    expect(flags(path)).toEqual([
      { text: 'Lives in Lisbon near the river', embedded: 1 },
      { text: 'Drinks black coffee every morning', embedded: 1 },
      { text: 'Plays chess on Sundays', embedded: 1 },
    ]);
    expect((await again.get(kept.id))!.text).toBe('Lives in Lisbon near the river');
  });

  it('forget and a re-worded update in the store itself keep exactly one vector per record; superseded records keep theirs', async () => {
    const path = freshPath();
    const store = await open(path, { embedder: hashedEmbedder() });
    const a = await store.save('Deploys run on Fridays', { key: 'deploy-day' });
    const b = await store.save('Deploys run on Thursdays', { key: 'deploy-day' });
    const c = await store.save('Builds run nightly');
    expect(b.supersedes).toEqual([a.id]);
    await store.update(c.id, { text: 'Builds run hourly' });
    await store.forget(c.id);
    expect(vectorCount(path)).toBe(2);
    // A superseded record is still a record: asked for, it is found by meaning too.
    const all = await store.search('deploys fridays', { ranking: 'vector', includeSuperseded: true, k: 5 });
    expect(all[0].id).toBe(a.id);
    expect((await store.search('deploys fridays', { ranking: 'vector', k: 5 })).map((h) => h.id)).toEqual([b.id]);
  });

  it('refuses another embedder with SqliteEmbedderMismatchError naming both, and re-embeds everything with reembed', async () => {
    const path = freshPath();
    const first = await open(path, { embedder: hashedEmbedder(64, 'model-a') });
    await first.save('I adopted a puppy from the shelter');
    await first.save('The quarterly tax return is due in April');
    first.close();

    const other = hashedEmbedder(32, 'model-b');
    const error = await openSqliteMemoryStore(path, { embedder: other }).catch((e: unknown) => e);
    expect(SqliteEmbedderMismatchError.isInstance(error)).toBe(true);
    const mismatch = error as SqliteEmbedderMismatchError;
    expect(mismatch.recorded).toEqual({ id: 'model-a', dimensions: 64 });
    expect(mismatch.given).toEqual({ id: 'model-b', dimensions: 32 });
    expect(mismatch.message).toMatch(/"model-a".*"model-b".*reembed: true/);
    // Same id, another size: the vectors cannot be compared either.
    await expect(openSqliteMemoryStore(path, { embedder: hashedEmbedder(32, 'model-a') })).rejects.toThrow(SqliteEmbedderMismatchError);
    expect(inspect(path, (db) => db.prepare('SELECT id, dimensions FROM memory_embedder').get())).toEqual({
      id: 'model-a',
      dimensions: 64,
    });

    const store = await open(path, { embedder: other, reembed: true });
    expect(inspect(path, (db) => db.prepare('SELECT id, dimensions FROM memory_embedder').get())).toEqual({
      id: 'model-b',
      dimensions: 32,
    });
    expect(flags(path).map((r) => r.embedded)).toEqual([0, 0]);
    const [hit] = await store.search('tax return', { k: 1, ranking: 'vector' });
    expect(hit.text).toBe('The quarterly tax return is due in April');
    expect(other.calls[0]).toEqual(['I adopted a puppy from the shelter', 'The quarterly tax return is due in April']);
    expect(vectorCount(path)).toBe(2);
    store.close();
    // Now recorded: the new embedder opens it without reembed, the old one is refused.
    (await open(path, { embedder: other })).close();
    await expect(openSqliteMemoryStore(path, { embedder: hashedEmbedder(64, 'model-a') })).rejects.toThrow(/"model-b"/);
  });

  it('upgrades a version 4 file with vectors: opened without the embedder it still reads, and the embedder store copies every vector', async () => {
    const path = freshPath();
    const embedder = hashedEmbedder();
    const first = await open(path, { embedder });
    const puppy = await first.save('I adopted a puppy from the shelter', { kind: 'pet' });
    await first.save('The quarterly tax return is due in April', { kind: 'tax' });
    await first.save('The puppy chews the tax forms', { kind: 'tax' });
    first.close();
    // Back to version 4: vectors only in vec0, no copies.
    const db = new Database(path);
    db.exec(
      'DROP INDEX memory_records_observed; DROP TABLE memory_vector_copies; ALTER TABLE memory_embedder DROP COLUMN copied; PRAGMA user_version = 4;',
    );
    db.close();

    // A store without the embedder upgrades the file; it cannot read vec0, so nothing is copied yet.
    const plain = await open(path);
    expect((await plain.search('puppy', { ranking: 'words', kind: 'pet' })).map((h) => h.id)).toEqual([puppy.id]);
    plain.close();
    const copies = () => inspect(path, (d) => (d.prepare('SELECT count(*) AS n FROM memory_vector_copies').get() as { n: number }).n);
    expect(inspect(path, (d) => d.pragma('user_version', { simple: true }))).toBe(6);
    expect(copies()).toBe(0);

    const store = await open(path, { embedder });
    expect(copies()).toBe(3);
    // The filtered ranking reads the copies: the one pet record, and the nearer of the two tax ones.
    expect((await store.search('puppy shelter', { k: 1, kind: 'pet', ranking: 'vector' })).map((h) => h.id)).toEqual([puppy.id]);
    expect((await store.search('puppy', { k: 1, kind: 'tax', ranking: 'vector' })).map((h) => h.text)).toEqual([
      'The puppy chews the tax forms',
    ]);
    // Each copy is the vector vec0 holds for the same record.
    expect(
      inspect(
        path,
        (d) =>
          (
            d
              .prepare(
                'SELECT count(*) AS n FROM memory_vector_copies c JOIN memory_vectors v ON v.rowid = c.seq WHERE c.embedding = v.embedding',
              )
              .get() as { n: number }
          ).n,
      ),
    ).toBe(3);
    expect(embedder.calls).toEqual([
      ['I adopted a puppy from the shelter'],
      ['The quarterly tax return is due in April'],
      ['The puppy chews the tax forms'],
      ['puppy shelter'],
      ['puppy'],
    ]);
  });

  it('upgrades a version 5 file (before the time index): the index is made on open and windowed searches find the same records', async () => {
    const path = freshPath();
    const embedder = hashedEmbedder();
    const first = await open(path, { embedder });
    for (let at = 0; at < 40; at++) await first.save(`tulips in the garden, week ${at}`, { provenance: { at } });
    const before = await first.search('tulips garden', { k: 5, since: 10, until: 20, ranking: 'vector' });
    first.close();
    const db = new Database(path);
    db.exec('DROP INDEX memory_records_observed; PRAGMA user_version = 5;');
    db.close();

    const store = await open(path, { embedder });
    const indexes = () =>
      inspect(path, (d) => d.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'memory_records_observed'").all());
    expect(indexes()).toEqual([{ name: 'memory_records_observed' }]);
    expect(inspect(path, (d) => d.pragma('user_version', { simple: true }))).toBe(6);
    const after = await store.search('tulips garden', { k: 5, since: 10, until: 20, ranking: 'vector' });
    expect(after).toEqual(before);
    expect(after.map((h) => h.provenance!.at).every((at) => at >= 10 && at < 20)).toBe(true);
    expect(after).toHaveLength(5);
  });

  it('a file with vectors still opens without an embedder, searching by words and refusing the vector ranking', async () => {
    const path = freshPath();
    (await open(path, { embedder: hashedEmbedder() })).close();
    const plain = await open(path);
    await plain.save('Lives in Lisbon');
    expect((await plain.search('lisbon')).map((r) => r.text)).toEqual(['Lives in Lisbon']);
    await expect(plain.search('lisbon', { ranking: 'vector' })).rejects.toThrow(/needs a store made with an embedder/);
  });

  it('refuses bad options', async () => {
    await expect(openSqliteMemoryStore(freshPath(), { reembed: true })).rejects.toThrow(MemoryInputError);
    await expect(openSqliteMemoryStore(freshPath(), { embedder: hashedEmbedder(), reembed: 'yes' as never })).rejects.toThrow(
      MemoryInputError,
    );
    await expect(openSqliteMemoryStore(freshPath(), { embedder: { id: 'x' } as never })).rejects.toThrow(/embedder/);
    const store = await open(freshPath(), { embedder: hashedEmbedder() });
    await expect(store.search('x', { ranking: 'vector', k: 5000 })).rejects.toThrow(/at most 4096/);
  });
});

describe('openSqliteMemoryStore with an embedder: filters before ranking', () => {
  it('finds the few records a filter lets through even when thousands rank above them', async () => {
    const path = freshPath();
    const embedder = hashedEmbedder();
    const store = await open(path, { embedder });
    const day = 86_400_000;
    // Saved in bulk through the store's own path would take a transaction each; 2,000 is enough to
    // bury the filtered records far below any fixed depth.
    for (let i = 0; i < 2000; i++)
      await store.save(`garden roses and tulips bloom ${i}`, { scope: { resource: 'crowd' }, provenance: { at: i } });
    for (let i = 0; i < 40; i++) await store.save(`garden roses bloom in spring ${i}`, { provenance: { at: 5 * day + i } });
    await store.save('the tulips patch needs water', { kind: 'chore', provenance: { at: 9 * day } });
    await store.save('water the garden roses', { kind: 'chore', provenance: { at: 10 * day } });
    for (const ranking of ['vector', 'hybrid', 'words'] as const) {
      const chores = await store.search('garden roses tulips bloom', { kind: 'chore', k: 2, ranking });
      expect(chores.map((h) => h.text).sort(), ranking).toEqual(['the tulips patch needs water', 'water the garden roses']);
      const window = await store.search('garden roses tulips bloom', { k: 50, since: 5 * day + 10, until: 5 * day + 20, ranking });
      expect(window.map((h) => h.provenance!.at).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => 5 * day + 10 + i));
      const crowd = await store.search('garden roses tulips bloom', { k: 3, scope: { resource: 'crowd' }, until: 3, ranking });
      expect(crowd.map((h) => h.text).sort()).toEqual([0, 1, 2].map((i) => `garden roses and tulips bloom ${i}`));
    }
  });

  it('fills k when most records pass the filter but the nearest ones do not', async () => {
    const store = await open(freshPath(), { embedder: hashedEmbedder() });
    // Half the records are the reader's and far from the query, half another resource's and near it:
    // the nearest few hundred of all hold none the reader may see.
    for (let i = 0; i < 600; i++) await store.save(`garden roses bloom ${i}`, { scope: { resource: 'other' } });
    for (let i = 0; i < 600; i++) await store.save(`invoice number ${i} paid`);
    await store.save('roses in the invoice');
    const hits = await store.search('garden roses bloom', { k: 5, ranking: 'vector' });
    expect(hits).toHaveLength(5);
    expect(hits[0].text).toBe('roses in the invoice');
    for (const hit of hits) expect(hit.scope).toBeUndefined();
  });

  it('a filtered vector search after another connection wrote ranks what that connection saved or forgot', async () => {
    const path = freshPath();
    const embedder = hashedEmbedder();
    const reader = await open(path, { embedder });
    const writer = await open(path, { embedder });
    for (let i = 0; i < 40; i++) await writer.save(`invoice number ${i} paid`, { kind: 'bill' });
    // Counted here: 40 pass the filter.
    expect(await reader.search('invoice paid', { k: 3, kind: 'bill', ranking: 'vector' })).toHaveLength(3);
    const roses = await writer.save('garden roses bloom in the invoice', { kind: 'bill' });
    expect((await reader.search('garden roses bloom', { k: 1, kind: 'bill', ranking: 'vector' }))[0].id).toBe(roses.id);
    await writer.forget(roses.id);
    expect((await reader.search('garden roses bloom', { k: 1, kind: 'bill', ranking: 'vector' }))[0].id).not.toBe(roses.id);
    // And this connection's own writes: a kind that had no record passing now has one.
    expect(await reader.search('garden roses', { kind: 'note', ranking: 'vector' })).toEqual([]);
    const note = await reader.save('garden roses note', { kind: 'note' });
    expect((await reader.search('garden roses', { kind: 'note', ranking: 'vector' })).map((h) => h.id)).toEqual([note.id]);
  });

  it('a filtered vector ranking is the exact one: the same records and order as every passing vector ranked by hand', async () => {
    const path = freshPath();
    const embedder = hashedEmbedder();
    const store = await open(path, { embedder });
    const words = ['garden', 'roses', 'invoice', 'tulips', 'water', 'chess', 'river', 'bloom'];
    const saved: Array<{ id: string; text: string; kind: string; at: number; resource?: string }> = [];
    for (let i = 0; i < 1200; i++) {
      const text = `${words[i % 8]} ${words[(i * 3) % 8]} ${words[(i * 5 + 1) % 8]} ${i}`;
      const kind = ['note', 'chore', 'bill'][i % 3];
      const resource = i % 4 === 0 ? 'ana' : undefined;
      const record = await store.save(text, { kind, provenance: { at: i }, ...(resource ? { scope: { resource } } : {}) });
      saved.push({ id: record.id, text, kind, at: i, resource });
    }
    // Record 7 forgotten and record 8 re-worded: neither may rank with its old vector.
    await store.forget(saved[7].id);
    await store.update(saved[8].id, { text: 'chess by the river 8' });
    saved[8].text = 'chess by the river 8';
    saved.splice(7, 1);
    const [q] = await embedder.embed(['garden roses bloom'], {});
    const cosine = async (text: string) => {
      const [v] = await embedder.embed([text], {});
      let dot = 0,
        a = 0,
        b = 0;
      for (let i = 0; i < v.length; i++) ((dot += v[i] * q[i]), (a += v[i] * v[i]), (b += q[i] * q[i]));
      return dot / Math.sqrt(a * b);
    };
    const scored = await Promise.all(saved.map(async (r) => ({ ...r, score: await cosine(r.text) })));
    const filters = [
      { kind: 'chore' },
      { since: 100, until: 140 },
      { scope: { resource: 'ana' }, kind: 'bill' },
      { since: 1000 },
      { until: 140 },
      {},
    ] as const;
    for (const filter of filters) {
      const passes = (r: (typeof scored)[number]) =>
        (!('kind' in filter) || r.kind === filter.kind) &&
        (!('since' in filter) || r.at >= filter.since!) &&
        (!('until' in filter) || r.at < filter.until!) &&
        (r.resource === undefined || ('scope' in filter && filter.scope.resource === r.resource));
      const expected = scored
        .filter((r) => passes(r) && r.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      const hits = await store.search('garden roses bloom', { k: 10, ranking: 'vector', ...filter });
      // Ties in cosine may come in either order: compare the scores in rank order, and the set of records.
      expect(
        hits.map((h) => h.score),
        JSON.stringify(filter),
      ).toEqual(expected.map((r) => expect.closeTo(r.score, 5)));
      const cutoff = expected[expected.length - 1].score;
      const surely = (list: Array<{ id: string; score?: number }>) =>
        list
          .filter((r) => r.score! > cutoff + 1e-6)
          .map((r) => r.id)
          .sort();
      expect(surely(hits), JSON.stringify(filter)).toEqual(surely(expected));
    }
  });

  it('the words ranking honours since and until in a store without an embedder', async () => {
    const store = await open();
    await store.save('met Ana at the conference', { provenance: { at: 1000 } });
    await store.save('met Ana for lunch', { provenance: { at: 2000 } });
    expect((await store.search('met ana', { since: 1500 })).map((h) => h.text)).toEqual(['met Ana for lunch']);
    expect((await store.search('met ana', { until: 1500 })).map((h) => h.text)).toEqual(['met Ana at the conference']);
    expect(await store.search('met ana', { since: 2001 })).toEqual([]);
    expect(await store.search('met ana', { since: 1000, until: 1000 })).toEqual([]);
  });
});
