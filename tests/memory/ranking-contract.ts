// One tokenizer and one ranking for every store: each store's results are checked against an
// exhaustive BM25 written here, independently of src/, so stores that pass agree with each other.
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/search/index.js';
import { MemoryInputError, type GovernedMemoryStore } from '../../src/memory/index.js';
import type { StoreFactory } from './store-contract.js';

/** The ranking's constants, stated once for both oracles here (ranking.test.ts scores with them too). */
export const OKAPI = { k1: 0.9, b: 0.3 };

/**
 * Pseudo-relevance feedback as docs/memory.md states it: the first pass is read `depth(k)` deep; words
 * outside the query that at least `minDocs` of its `docs` best hits hold, weighed by each hit's share of
 * their scores times the word's share of the hit's terms, the `terms` heaviest, the heaviest scaled to
 * `weight` of a query word; then the first pass's hits, and only those, are scored again.
 */
export const FEEDBACK = { docs: 5, minDocs: 2, terms: 10, weight: 0.15, depth: (k: number) => Math.max(k * 3, 30) };

export type Doc = { id: string; terms: string[]; kind?: string; order: number; current: boolean };

/** One term's Okapi BM25 part for a document (OKAPI's k1 and b, Lucene's idf), over every stored record. */
function part(docs: Doc[], d: Doc, t: string): number {
  const n = docs.length;
  const avgdl = Math.max(docs.reduce((sum, x) => sum + x.terms.length, 0) / n, 1);
  const tf = d.terms.filter((x) => x === t).length;
  if (tf === 0) return 0;
  const df = docs.filter((x) => x.terms.includes(t)).length;
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return (idf * tf * (OKAPI.k1 + 1)) / (tf + OKAPI.k1 * (1 - OKAPI.b + (OKAPI.b * d.terms.length) / avgdl));
}

/** Plain BM25 over every stored record, scored one by one: the first pass, without feedback. */
export function plainBm25(docs: Doc[], query: string, opts: { k: number; kind?: string; minScore?: number }) {
  const terms = [...new Set(tokenize(query))];
  return docs
    .filter((d) => d.current && (opts.kind === undefined || d.kind === opts.kind))
    .map((d) => ({ d, score: terms.reduce((sum, t) => sum + part(docs, d, t), 0) }))
    .filter((h) => h.score > (opts.minScore ?? 0))
    .sort((a, b) => b.score - a.score || a.d.order - b.d.order)
    .slice(0, opts.k);
}

/** What every store returns: plain BM25 read FEEDBACK.depth deep, then ranked again with the feedback words. */
function exhaustive(docs: Doc[], query: string, opts: { k: number; kind?: string; minScore?: number }) {
  const asked = new Set(tokenize(query));
  const pool = plainBm25(docs, query, { ...opts, k: FEEDBACK.depth(opts.k) });
  const top = pool.slice(0, FEEDBACK.docs);
  const total = top.reduce((sum, h) => sum + h.score, 0);
  const words = [...new Set(top.flatMap((h) => h.d.terms))].filter((t) => !asked.has(t));
  const weighed = words
    .filter((t) => top.filter((h) => h.d.terms.includes(t)).length >= FEEDBACK.minDocs)
    .map((t) => ({
      t,
      mass: top.reduce((sum, h) => sum + ((h.score / total) * h.d.terms.filter((x) => x === t).length) / h.d.terms.length, 0),
    }))
    .sort((a, b) => b.mass - a.mass || (a.t < b.t ? -1 : 1))
    .slice(0, FEEDBACK.terms);
  return pool
    .map((h, order) => ({
      ...h,
      order,
      score: h.score + weighed.reduce((sum, w) => sum + ((FEEDBACK.weight * w.mass) / weighed[0].mass) * part(docs, h.d, w.t), 0),
    }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, opts.k);
}

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

const VOCABULARY = [
  'harbour',
  'harbours',
  'ship',
  'shipping',
  'shipped',
  'crane',
  'cranes',
  'dock',
  'docked',
  'tide',
  'tides',
  'rope',
  'sail',
  'sailing',
  'anchor',
  'pier',
];

export function rankingContract(name: string, open: StoreFactory): void {
  describe(`${name}: one tokenizer and ranking for every store`, () => {
    it('matches words by the shared stemmer only: "universities" finds "The university library", "universe" does not', async () => {
      const store = await open();
      await store.save('The university library');
      await store.save('Library cards for students');
      expect((await store.search('universities')).map((r) => r.text)).toEqual(['The university library']);
      expect(await store.search('universe')).toEqual([]);
      expect((await store.search('Libraries!')).map((r) => r.text).sort()).toEqual([
        'Library cards for students',
        'The university library',
      ]);
    });

    it("indexes a save's context at half weight: a query only the context matches finds the record, below records whose own text matches", async () => {
      const store = await open();
      // No two records share a word but "lake", so no feedback word reorders them: this is the weighting alone.
      const turn = await store.save('Melanie: I signed up for a pottery class', {
        context: 'Caroline: How was the lake trip?\n8 May, 2023',
      });
      const own = await store.save('Jon: The lake was cold but lovely', { context: 'Gina: Any plans for summer?\n3 June, 2023' });
      const bare = await store.save('Swimming in the lake every morning');
      await store.save('Bought new running shoes', { context: 'Off to the shop' });
      const hits = await store.search('lake', { k: 5 });
      expect(hits.map((h) => h.id)).toEqual([own.id, bare.id, turn.id]);
      // The context is not the record: search hands back the text as saved, and saving it stored no more.
      expect(hits[2].text).toBe('Melanie: I signed up for a pottery class');
      expect(await store.get(turn.id)).toEqual(turn);
      expect(Object.keys(turn)).not.toContain('context');
      // An edit of the text keeps what surrounded it.
      await store.update(turn.id, { text: 'Melanie: I signed up for a ceramics class' });
      expect((await store.search('lake trip', { k: 5 })).map((h) => h.id)).toContain(turn.id);
      expect((await store.search('pottery')).map((h) => h.id)).toEqual([]);
      expect((await store.search('ceramics')).map((h) => h.id)).toEqual([turn.id]);
      // A context with no words (or an empty one) is no context; a non-string one is refused.
      const plain = await store.save('Tide tables for the harbour', { context: '' });
      expect((await store.search('tide')).map((h) => h.id)).toEqual([plain.id]);
      const refused = await store.save('x', { context: 7 as unknown as string }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(MemoryInputError.isInstance(refused)).toBe(true);
    });

    it('feedback: words the best hits share lift a record that shares only a common word with the query, and never add one that shares none', async () => {
      const store = await open();
      const docs: Doc[] = [];
      const save = async (text: string) => {
        const saved = await store.save(text);
        docs.push({ id: saved.id, terms: tokenize(text), order: docs.length, current: true });
        return saved;
      };
      await save('adoption interview with the social worker');
      await save('adoption home visit from the social worker');
      for (const other of ['beach', 'dinner', 'movie', 'hike', 'concert']) await save(`plans ${other}`);
      const evidence = await save('plans with the social worker next week');
      const unrelated = await save('social worker');
      // Plain BM25 ranks the evidence below every short "plans" record: outside the top 3.
      expect(plainBm25(docs, 'adoption plans', { k: 3 }).map((h) => h.d.id)).not.toContain(evidence.id);
      const hits = await store.search('adoption plans', { k: 3 });
      expect(hits.map((h) => h.id)).toContain(evidence.id);
      expect(hits[2].id).toBe(evidence.id);
      // "social worker" is only what the best hits share; a record holding nothing the query said stays out.
      const all = await store.search('adoption plans', { k: 20 });
      expect(all).toHaveLength(docs.length - 1);
      expect(all.map((h) => h.id)).not.toContain(unrelated.id);
    });

    it('returns exactly the exhaustive BM25 top k, scores and tie order included, after saves, edits, supersedes and forgets', async () => {
      const store: GovernedMemoryStore = await open();
      const random = rng(23);
      const word = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2)];
      const docs: Doc[] = [];
      let order = 0;
      for (let i = 0; i < 70; i++) {
        // Short texts from a small vocabulary: many ties, repeated words, different lengths.
        const text = Array.from({ length: 1 + Math.floor(random() * 6) }, word).join(' ') + ` n${i}`;
        const kind = i % 3 === 0 ? 'log' : undefined;
        const saved = await store.save(text, { kind });
        docs.push({ id: saved.id, terms: tokenize(text), kind, order: order++, current: true });
      }
      for (let i = 0; i < 6; i++) {
        const doc = docs[i * 7 + 2];
        const text = `${word()} ${word()} edited ${i}`;
        await store.update(doc.id, { text });
        Object.assign(doc, { terms: tokenize(text), order: order++ });
      }
      for (const i of [5, 17, 40]) {
        await store.forget(docs[i].id);
        docs[i] = undefined as never;
      }
      const live = () => docs.filter(Boolean);
      const retired = docs[30];
      const replacement = await store.save('anchor pier replacement', { supersedes: retired.id, kind: retired.kind });
      retired.current = false;
      docs.push({ id: replacement.id, terms: tokenize('anchor pier replacement'), kind: retired.kind, order: order++, current: true });

      for (let q = 0; q < 40; q++) {
        const query = Array.from({ length: 1 + Math.floor(random() * 3) }, word).join(' ');
        const opts = { k: 1 + Math.floor(random() * 12), kind: q % 4 === 0 ? 'log' : undefined, minScore: q % 5 === 0 ? random() : 0 };
        const want = exhaustive(live(), query, opts);
        const got = await store.search(query, opts);
        expect(
          got.map((r) => r.id),
          `${query} ${JSON.stringify(opts)}`,
        ).toEqual(want.map((h) => h.d.id));
        got.forEach((r, i) => expect(r.score).toBeCloseTo(want[i].score, 9));
      }
    });
  });
}
