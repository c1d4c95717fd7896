// How a store merges its two rankings of the same records: weighted reciprocal-rank fusion. Ranks,
// not scores, because BM25 scores and cosines live on unrelated scales; weighted, because the two
// rankings are not equally good witnesses. Measured on the LoCoMo development half (bench
// memory-recall.bench.ts, docs/memory.md): with the offline embedder an even 50/50 fusion fell below
// words alone, while words 1, vectors 0.5 and c 10 stayed above it. Once the words ranking read each
// turn's context and used feedback (recall@10 75.1%), vectors 0.5 fell below it (75.0%) and 0.3 did
// not (recall@5 67.5% vs 66.8%, recall@10 75.2%, hit@10 equal). A small c keeps the words ranking's top
// places decisive: a record only the vectors find can pass words' tenth place, not its first.

export type FusionWeights = { words: number; vector: number; c: number };

export const DEFAULT_FUSION: FusionWeights = { words: 1, vector: 0.3, c: 10 };

/** How deep each ranking is read before fusing, for a search asking for `k` records. */
export function fusionDepth(k: number): number {
  return Math.max(k * 3, 30);
}

/**
 * Fuses two best-first lists of keys into one, best first, each key scored
 * `words / (c + rank in words) + vector / (c + rank in vectors)` (ranks from 1; a list that lacks the
 * key adds nothing). Ties keep the words ranking's order, then the vector ranking's.
 */
export function fuseRankings<K>(
  words: readonly K[],
  vector: readonly K[],
  k: number,
  weights: FusionWeights = DEFAULT_FUSION,
): Array<{ key: K; score: number }> {
  const scores = new Map<K, { score: number; order: number }>();
  const add = (list: readonly K[], weight: number, offset: number) =>
    list.forEach((key, i) => {
      const part = weight / (weights.c + i + 1);
      const seen = scores.get(key);
      if (seen === undefined) scores.set(key, { score: part, order: offset + i });
      else seen.score += part;
    });
  add(words, weights.words, 0);
  add(vector, weights.vector, words.length);
  return [...scores]
    .sort((a, b) => b[1].score - a[1].score || a[1].order - b[1].order)
    .slice(0, k)
    .map(([key, { score }]) => ({ key, score }));
}
