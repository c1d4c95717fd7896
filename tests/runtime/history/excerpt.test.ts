// Excerpts of long condensed turns: the words around each match, verbatim, within the budget.
import { describe, expect, it } from 'vitest';
import { excerptAround } from '../../../src/runtime/history/excerpt.js';
import { tokenize } from '../../../src/search/index.js';

/** Query terms as the index weighs them: here every term the same, unless given. */
const termsOf = (query: string, weights: Record<string, number> = {}) => new Map(tokenize(query).map((t) => [t, weights[t] ?? 1]));
/** The verbatim pieces of an excerpt, its … marks taken out. */
const pieces = (excerpt: string) => excerpt.split('…').filter((piece) => piece !== '');

describe('excerptAround', () => {
  it('anchors on whole words: "ts" inside "tests" early on does not pull the excerpt away from graph.ts late in the turn', () => {
    const text = `${'The tests ran and the events arrived. '.repeat(12)}The change is in src/runtime/graph.ts now. ${'Nothing else. '.repeat(10)}`;
    const excerpt = excerptAround(text, termsOf('src/runtime/graph.ts'), 120);
    expect(excerpt).toContain('src/runtime/graph.ts');
    expect(excerpt.length).toBeLessThanOrEqual(122);
    for (const piece of pieces(excerpt)) expect(text).toContain(piece);
  });

  it('centres on the rarest term when the query words stand in different places', () => {
    const text = `The build ran early. ${'Filler words go here. '.repeat(20)}Then build K7Q2 failed. ${'More filler. '.repeat(20)}`;
    const excerpt = excerptAround(text, termsOf('build K7Q2', { build: 0.5, k7q2: 9 }), 80);
    expect(excerpt).toContain('build K7Q2 failed');
  });

  it('shows every matching region of a long turn that fits, in the order they stand, joined by …', () => {
    const text = `Start ALPHA-1 here. ${'padding text. '.repeat(40)}Middle BRAVO-2 there. ${'padding text. '.repeat(40)}End CHARLIE-3.`;
    const excerpt = excerptAround(text, termsOf('ALPHA-1 BRAVO-2 CHARLIE-3'), 240);
    expect(excerpt.indexOf('ALPHA-1')).toBeGreaterThanOrEqual(0);
    expect(excerpt.indexOf('BRAVO-2')).toBeGreaterThan(excerpt.indexOf('ALPHA-1'));
    expect(excerpt.indexOf('CHARLIE-3')).toBeGreaterThan(excerpt.indexOf('BRAVO-2'));
    expect(pieces(excerpt)).toHaveLength(3);
    expect(excerpt.length).toBeLessThanOrEqual(242);
    for (const piece of pieces(excerpt)) expect(text).toContain(piece);
  });

  it('keeps the best region when not all fit, and the start of the text when nothing matches', () => {
    const text = `common word. ${'x '.repeat(300)}common RARE-9 word. ${'y '.repeat(300)}`;
    const excerpt = excerptAround(text, termsOf('common RARE-9', { common: 0.1, rare: 5, '9': 5 }), 30);
    expect(excerpt).toContain('RARE-9');
    const none = excerptAround(text, termsOf('absent'), 30);
    expect(none).toMatch(/^common word\..*…$/);
    expect(text.startsWith(none.slice(0, -1))).toBe(true);
    expect(none.length).toBeLessThanOrEqual(31);
    expect(excerptAround('short text', termsOf('absent'), 30)).toBe('short text');
  });

  it('stays within the budget and verbatim for any match position and budget', () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'path/to/file.ts', 'INV-1234', 'npm', 'run'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let trial = 0; trial < 300; trial++) {
      const text = Array.from({ length: 20 + Math.floor(random() * 300) }, () => words[Math.floor(random() * words.length)]).join(' ');
      const query = `${words[Math.floor(random() * words.length)]} ${words[Math.floor(random() * words.length)]}`;
      const max = 10 + Math.floor(random() * 500);
      const excerpt = excerptAround(text, termsOf(query), max);
      expect(excerpt.length).toBeLessThanOrEqual(max + 2);
      for (const piece of pieces(excerpt)) expect(text).toContain(piece);
    }
  });
});
