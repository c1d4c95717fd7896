// What every store made with an embedder must do, run against each store by its own test file with the
// real offline embedder (Universal Sentence Encoder lite): recall by meaning, filters before ranking,
// vectors kept in step with edits and forgets, and the words ranking unchanged underneath.
import { describe, expect, it } from 'vitest';
import type { Embedder, GovernedMemoryStore, SearchOptions } from '../../src/memory/index.js';
import { MemoryInputError } from '../../src/memory/index.js';

export type EmbeddedStoreFactory = (embedder: Embedder) => Promise<GovernedMemoryStore>;

/** An embedder that counts the texts it is asked for, over a real one. */
export function counting(inner: Embedder): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    maxBatch: inner.maxBatch,
    texts,
    embed(batch, opts) {
      texts.push(...batch);
      return inner.embed(batch, opts);
    },
  };
}

const PETS = [
  'I adopted a puppy from the shelter last week',
  'The quarterly tax return is due in April',
  'My favourite band played a concert downtown',
  'We repainted the kitchen cabinets blue',
];

export function vectorStoreContract(name: string, embedder: Embedder, open: EmbeddedStoreFactory): void {
  describe(`${name}: recall by meaning`, () => {
    const ids = (hits: Array<{ text: string }>) => hits.map((h) => h.text);

    it('finds a record that shares no word with the query, by vectors alone and fused', async () => {
      const store = await open(embedder);
      for (const text of PETS) await store.save(text);
      const query = 'new dog';
      expect(await store.search(query, { ranking: 'words' })).toEqual([]);
      const [byVector] = await store.search(query, { k: 1, ranking: 'vector' });
      expect(byVector.text).toBe(PETS[0]);
      expect(byVector.score).toBeGreaterThan(0);
      expect(byVector.score).toBeLessThanOrEqual(1.0001);
      const [fused] = await store.search(query, { k: 1 });
      expect(fused.text).toBe(PETS[0]);
    });

    it('keeps the words ranking first where the words are decisive', async () => {
      const store = await open(embedder);
      for (const text of PETS) await store.save(text);
      await store.save('Bluefin is the codename of the shelter project');
      const hits = await store.search('bluefin codename', { k: 3 });
      expect(hits[0].text).toBe('Bluefin is the codename of the shelter project');
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score!).toBeGreaterThanOrEqual(hits[i].score!);
    });

    it('applies kind, scope, time and superseding before ranking, in every ranking', async () => {
      const store = await open(embedder);
      const day = 86_400_000;
      await store.save('Adopted a kitten named Miso', { kind: 'event', scope: { resource: 'ann' }, provenance: { at: 10 * day } });
      await store.save('Adopted a puppy named Rex', { kind: 'event', scope: { resource: 'bob' }, provenance: { at: 20 * day } });
      await store.save('Adopted a parrot named Kiwi', { kind: 'plan', scope: { resource: 'ann' }, provenance: { at: 30 * day } });
      const old = await store.save('Adopted a hamster named Bun', {
        kind: 'event',
        scope: { resource: 'ann' },
        provenance: { at: 40 * day },
      });
      await store.save('Gave the hamster Bun away', {
        kind: 'event',
        scope: { resource: 'ann' },
        supersedes: old.id,
        provenance: { at: 41 * day },
      });
      for (const ranking of ['hybrid', 'words', 'vector'] as const) {
        const search = (opts: SearchOptions) => store.search('adopted a pet', { k: 10, ranking, ...opts });
        const ann = ids(await search({ scope: { resource: 'ann' }, kind: 'event' }));
        expect(ann, ranking).toContain('Adopted a kitten named Miso');
        expect(ann, ranking).not.toContain('Adopted a puppy named Rex');
        expect(ann, ranking).not.toContain('Adopted a parrot named Kiwi');
        expect(ann, ranking).not.toContain('Adopted a hamster named Bun');
        expect(ids(await search({ scope: { resource: 'bob' }, since: 15 * day, until: 25 * day })), ranking).toEqual([
          'Adopted a puppy named Rex',
        ]);
        expect(ids(await search({ scope: { resource: 'ann' }, until: 10 * day })), ranking).toEqual([]);
        expect(ids(await search({ scope: { resource: 'ann' }, since: 30 * day, until: 31 * day })), ranking).toEqual([
          'Adopted a parrot named Kiwi',
        ]);
        // k 1 with a filter still finds the one record it lets through: filtering is not done after a cut.
        expect(ids(await store.search('adopted a pet', { k: 1, ranking, scope: { resource: 'ann' }, since: 30 * day })), ranking).toEqual([
          'Adopted a parrot named Kiwi',
        ]);
      }
    });

    it('keeps each record the time it was said, not the time it was saved', async () => {
      const store = await open(embedder);
      const said = Date.UTC(2023, 4, 8, 13, 56);
      const saved = await store.save('Caroline went to a LGBTQ support group', { provenance: { at: said } });
      expect(saved.provenance!.at).toBe(said);
      expect(saved.createdAt).toBeGreaterThan(said);
      const [hit] = await store.search('support group', { since: Date.UTC(2023, 4, 8), until: Date.UTC(2023, 4, 9) });
      expect(hit.provenance!.at).toBe(said);
      expect(await store.search('support group', { since: Date.UTC(2023, 4, 9) })).toEqual([]);
    });

    it('re-embeds an edited text, forgets a forgotten record, and refuses bad time bounds', async () => {
      const store = await open(embedder);
      const pet = await store.save(PETS[0]);
      for (const text of PETS.slice(1)) await store.save(text);
      await store.update(pet.id, { text: 'The car needs new winter tyres' });
      const [top] = await store.search('vehicle maintenance', { k: 1, ranking: 'vector' });
      expect(top.id).toBe(pet.id);
      // Its old text, asked word for word, no longer finds it as its own (a stale vector would score ~1).
      const stale = (await store.search(PETS[0], { k: 10, ranking: 'vector' })).find((h) => h.id === pet.id);
      expect(stale?.score ?? 0).toBeLessThan(0.9);
      await store.forget(pet.id);
      expect((await store.search('vehicle maintenance', { k: 10, ranking: 'vector' })).map((h) => h.id)).not.toContain(pet.id);
      await expect(store.search('x', { since: Number.NaN })).rejects.toThrow(MemoryInputError);
      await expect(store.search('x', { until: '2024' as never })).rejects.toThrow(MemoryInputError);
      await expect(store.search('x', { ranking: 'semantic' as never })).rejects.toThrow(MemoryInputError);
    });

    it('saves nothing when the embedder fails, and recovers once it works', async () => {
      let fail = true;
      const flaky: Embedder = {
        id: embedder.id,
        dimensions: embedder.dimensions,
        embed: (texts, opts) => (fail ? Promise.reject(new Error('embedding service down')) : embedder.embed(texts, opts)),
      };
      const store = await open(flaky);
      await expect(store.save(PETS[0])).rejects.toThrow('embedding service down');
      expect(await store.all()).toEqual([]);
      fail = false;
      await store.save(PETS[0]);
      expect((await store.search('new dog', { ranking: 'vector' }))[0].text).toBe(PETS[0]);
    });
  });
}
