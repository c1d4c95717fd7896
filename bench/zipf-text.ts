// Deterministic, realistic-looking text for the search benchmarks: a few thousand generated words drawn
// with a Zipf-like distribution (a handful of words everywhere, a long tail of rare ones), as in prose.
import { STOPWORDS } from '../src/search/stopwords.js';

/** A seeded generator (mulberry32), so every run measures the same corpus. */
export function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'br',
  'cl',
  'dr',
  'st',
  'tr',
  'pl',
  'gr',
  'sh',
  'ch',
];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'io'];
const CODAS = ['', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'st', 'rk', 'ng'];

export type Corpus = { words: string[]; word(): string; sentence(min: number, max: number): string; random: () => number };

/** `size` distinct pronounceable words, ranked; `word()` samples rank r with weight 1 / r^1.07. */
export function corpus(size: number, seed = 42): Corpus {
  const random = seeded(seed);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
  const seen = new Set<string>();
  const words: string[] = [];
  while (words.length < size) {
    const syllables = 1 + Math.floor(random() * 3);
    let word = '';
    for (let s = 0; s < syllables; s++) word += pick(ONSETS) + pick(NUCLEI) + pick(CODAS);
    if (word.length > 2 && !STOPWORDS.has(word) && !seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) cumulative[r] = total += 1 / (r + 1) ** 1.07;
  const word = () => {
    const target = random() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
  const sentence = (min: number, max: number) => {
    const length = min + Math.floor(random() * (max - min + 1));
    return Array.from({ length }, word).join(' ');
  };
  return { words, word, sentence, random };
}

/** Queries as people type them: two words from some existing text and one common-ish word. */
export function queries(texts: string[], text: Corpus, count: number): string[] {
  return Array.from({ length: count }, () => {
    const source = texts[Math.floor(text.random() * texts.length)].split(' ');
    const a = source[Math.floor(text.random() * source.length)];
    const b = source[Math.floor(text.random() * source.length)];
    return `${a} ${b} ${text.word()}`;
  });
}
