import { describe, expect, it } from 'vitest';
import { Bm25Index, tokenize } from '../../src/search/index.js';

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
