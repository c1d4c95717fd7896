// The one BM25 formula every memory store ranks with, so the same records score the same in each.

// Term frequency saturates around k1, and b weighs length normalisation. Not the usual 1.2 / 0.75: memory
// records are short turns, where length says little about relevance; measured on LoCoMo's dev half (words
// recall@10 61.5% -> 63.5%, every question category up), 0.9 / 0.3 beats the Okapi defaults.
export const K1 = 0.9;
export const B = 0.3;

/** A term's most possible contribution: idf (Lucene's, never negative) times k1 + 1. */
export function termWeight(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5)) * (K1 + 1);
}

/** The two length constants of a corpus, `base + lengthWeight * length` being a document's norm. */
export function lengthNorm(docs: number, totalLength: number): { base: number; lengthWeight: number } {
  return { base: K1 * (1 - B), lengthWeight: (K1 * B) / Math.max(totalLength / docs, 1) };
}
