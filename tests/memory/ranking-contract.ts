// One tokenizer and one ranking for every store: each store's results are checked against an
// exhaustive BM25 written here, independently of src/, so stores that pass agree with each other.
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/search/index.js';
import type { GovernedMemoryStore } from '../../src/memory/index.js';
import type { StoreFactory } from './store-contract.js';

/** The ranking's constants, stated once for both oracles here (ranking.test.ts scores with them too). */
export const OKAPI = { k1: 0.9, b: 0.3 };

type Doc = { id: string; terms: string[]; kind?: string; order: number; current: boolean };

/** Okapi BM25 (OKAPI's k1 and b, Lucene's idf) over every stored record, scored one by one. */
function exhaustive(docs: Doc[], query: string, opts: { k: number; kind?: string; minScore?: number }) {
  const n = docs.length;
  const avgdl = Math.max(docs.reduce((sum, d) => sum + d.terms.length, 0) / n, 1);
  const terms = [...new Set(tokenize(query))];
  const df = (t: string) => docs.filter((d) => d.terms.includes(t)).length;
  return docs
    .filter((d) => d.current && (opts.kind === undefined || d.kind === opts.kind))
    .map((d) => {
      let score = 0;
      for (const t of terms) {
        const tf = d.terms.filter((x) => x === t).length;
        if (tf === 0) continue;
        const idf = Math.log(1 + (n - df(t) + 0.5) / (df(t) + 0.5));
        score += (idf * tf * (OKAPI.k1 + 1)) / (tf + OKAPI.k1 * (1 - OKAPI.b + (OKAPI.b * d.terms.length) / avgdl));
      }
      return { d, score };
    })
    .filter((h) => h.score > (opts.minScore ?? 0))
    .sort((a, b) => b.score - a.score || a.d.order - b.d.order)
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
