// The one BM25 formula every memory store ranks with, so the same records score the same in each.

// The usual Okapi constants: term frequency saturates around k1, and b weighs length normalisation.
export const K1 = 1.2;
export const B = 0.75;

/** A term's most possible contribution: idf (Lucene's, never negative) times k1 + 1. */
export function termWeight(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5)) * (K1 + 1);
}

/** The two length constants of a corpus, `base + lengthWeight * length` being a document's norm. */
export function lengthNorm(docs: number, totalLength: number): { base: number; lengthWeight: number } {
  return { base: K1 * (1 - B), lengthWeight: (K1 * B) / Math.max(totalLength / docs, 1) };
}
