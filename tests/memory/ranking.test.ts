import { describe, expect, it } from 'vitest';
import { Bm25Index, tokenize } from '../../src/search/index.js';
import { OKAPI } from './ranking-contract.js';

describe('tokenize', () => {
  it('folds case and Latin accents, so "Café" and "cafe" are one word', () => {
    expect(tokenize('Café CAFE cafe')).toEqual(['cafe', 'cafe', 'cafe']);
  });

  it('conflates the forms a query and a stored fact usually disagree on', () => {
    const same = (a: string, b: string) => expect(tokenize(a)).toEqual(tokenize(b));
    same('units', 'unit');
    same('created', 'create');
    same('creating', 'create');
    same('policies', 'policy');
    same('invoices', 'invoicing');
    same('noted', 'notes');
    same('running', 'runs');
    same('stopped', 'stop');
  });

  it('keeps distinct words apart', () => {
    expect(tokenize('hoping')).toEqual(tokenize('hope'));
    expect(tokenize('hopping')).not.toEqual(tokenize('hoping'));
    expect(tokenize('note')).not.toEqual(tokenize('nothing'));
    expect(tokenize('metric')).toEqual(['metric']);
  });

  it('drops stop words and punctuation, keeps numbers and non-Latin words whole', () => {
    expect(tokenize('Which of the units? (v2.1)')).toEqual(['unit', 'v2', '1']);
    expect(tokenize('नमस्ते दुनिया')).toEqual(['नमस्ते', 'दुनिया']);
  });
});

// A small deterministic generator, so a failure reproduces.
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe('Bm25Index', () => {
  it('after interleaved adds and removes, ranks exactly like an index built fresh from the survivors', () => {
    const random = rng(7);
    const vocabulary = Array.from({ length: 60 }, (_, i) => `w${i}`);
    // Skewed word choice, so some postings lists are long and get compacted as documents go.
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)];
    const incremental = new Bm25Index();
    const docs = new Map<number, string[]>();
    for (let step = 0; step < 3000; step++) {
      if (docs.size > 0 && random() < 0.4) {
        const victims = [...docs.keys()];
        const victim = victims[Math.floor(random() * victims.length)];
        expect(incremental.remove(victim)).toBe(true);
        docs.delete(victim);
      } else {
        const terms = Array.from({ length: 1 + Math.floor(random() * 12) }, word);
        docs.set(incremental.add(terms), terms);
      }
    }
    const fresh = new Bm25Index();
    const freshToOld = new Map<number, number>();
    for (const [doc, terms] of docs) freshToOld.set(fresh.add(terms), doc);
    expect(incremental.size).toBe(docs.size);

    for (let q = 0; q < 200; q++) {
      const query = Array.from({ length: 1 + Math.floor(random() * 4) }, word);
      const got = incremental.search(query, { k: 8 });
      const want = fresh.search(query, { k: 8 }).map((hit) => ({ doc: freshToOld.get(hit.doc)!, score: hit.score }));
      expect(got.map((h) => h.doc)).toEqual(want.map((h) => h.doc));
      got.forEach((hit, i) => expect(hit.score).toBeCloseTo(want[i].score, 10));
    }
  });

  // Pruning is only exact if its bound is: a flat vocabulary (terms of similar weight) and large k put
  // the k-th best score right at the bound, where an unsound cut would drop a true hit.
  const corpora = {
    'a Zipf-like vocabulary': (random: () => number) => `t${Math.min(299, Math.floor(1 / (random() + 1e-3)) - 1)}`,
    'a flat vocabulary': (random: () => number) => `t${Math.floor(random() * 40)}`,
  };
  for (const [label, pick] of Object.entries(corpora)) {
    it(`returns exactly the top k of an exhaustive BM25 scoring over ${label}, with minScore and a filter`, () => {
      const random = rng(11);
      const word = () => pick(random);
      const docs = Array.from({ length: 3000 }, () => Array.from({ length: 1 + Math.floor(random() * 15) }, word));
      const index = new Bm25Index();
      docs.forEach((terms) => index.add(terms));

      const avgdl = docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
      const df = new Map<string, number>();
      for (const d of docs) for (const term of new Set(d)) df.set(term, (df.get(term) ?? 0) + 1);
      const tfs = docs.map((terms) => {
        const tf = new Map<string, number>();
        for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
        return tf;
      });
      const exhaustive = (query: string[], k: number, minScore: number, accept: (doc: number) => boolean) =>
        docs
          .map((terms, doc) => {
            let score = 0;
            for (const term of new Set(query)) {
              const tf = tfs[doc].get(term) ?? 0;
              if (tf === 0) continue;
              const idf = Math.log(1 + (docs.length - df.get(term)! + 0.5) / (df.get(term)! + 0.5));
              score += (idf * tf * (OKAPI.k1 + 1)) / (tf + OKAPI.k1 * (1 - OKAPI.b + (OKAPI.b * terms.length) / avgdl));
            }
            return { doc, score };
          })
          .filter((hit) => hit.score > minScore && accept(hit.doc))
          .sort((a, b) => b.score - a.score || a.doc - b.doc)
          .slice(0, k);

      for (let q = 0; q < 200; q++) {
        const query = Array.from({ length: 2 + Math.floor(random() * 3) }, word);
        const k = 1 + Math.floor(random() * 60);
        const minScore = q % 3 === 0 ? random() * 2 : 0;
        const accept = q % 2 === 0 ? (doc: number) => doc % 3 !== 0 : () => true;
        const got = index.search(query, { k, minScore, accept });
        const want = exhaustive(query, k, minScore, accept);
        expect(
          got.map((h) => h.doc),
          query.join(' '),
        ).toEqual(want.map((h) => h.doc));
        got.forEach((hit, i) => expect(hit.score).toBeCloseTo(want[i].score, 9));
      }
    });
  }

  it('forgets a removed document entirely and says so only once', () => {
    const index = new Bm25Index();
    const a = index.add(['alpha', 'beta']);
    const b = index.add(['alpha']);
    expect(index.remove(a)).toBe(true);
    expect(index.remove(a)).toBe(false);
    expect(index.search(['beta'], { k: 5 })).toEqual([]);
    expect(index.search(['alpha'], { k: 5 }).map((h) => h.doc)).toEqual([b]);
  });

  it('ranks equal scores by insertion order and consults the filter only for contenders', () => {
    const index = new Bm25Index();
    const docs = [index.add(['same']), index.add(['same']), index.add(['same'])];
    expect(index.search(['same'], { k: 2 }).map((h) => h.doc)).toEqual([docs[0], docs[1]]);
    expect(index.search(['same'], { k: 2, accept: (doc) => doc !== docs[0] }).map((h) => h.doc)).toEqual([docs[1], docs[2]]);
  });
});
