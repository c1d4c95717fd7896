import { lengthNorm, termWeight } from './bm25-formula.js';
import { feedbackDepth, feedbackTerms, rankWithFeedback, type PoolHit } from './feedback.js';
import { CONTEXT_MARK, CONTEXT_TF } from './term-list.js';

/** A document an external term index returned: its key, its tie-break order and its index terms. */
export type TermCandidate = { ref: number; order: number; terms: string };

export type TermStats = { docs: number; totalLength: number; df: ReadonlyMap<string, number> };

/** A term index kept by a database (FTS5, a tsvector GIN index), seen one term at a time. */
export interface TermSource<Wrap extends 'sync' | 'async' = 'async'> {
  /** Counts over every document in the index (filters aside): documents, terms, and df per asked term. */
  stats(terms: readonly string[]): Wrap extends 'sync' ? TermStats : Promise<TermStats>;
  /** The documents passing the caller's filters that contain `term` and none of `without`. */
  containing(term: string, without: readonly string[]): Wrap extends 'sync' ? TermCandidate[] : Promise<TermCandidate[]>;
}

type Ask = { stats: readonly string[] } | { term: string; without: readonly string[] };
type Answer = TermStats | TermCandidate[];

export type RankedRef = { ref: number; score: number };

/**
 * BM25 top k over an external term index, with the same scores (same formula, same summation order)
 * and the same ties (lower `order` first) as `Bm25Index`. Terms are taken rarest first; each brings in
 * only documents the earlier terms did not, and each document is scored whole from its own terms. Once
 * the k-th best score reaches what the remaining terms could add together, no unseen document can
 * catch up and those terms are never fetched: a query of one rare and two common words reads the rare
 * word's documents, not the common words' tens of thousands.
 */
export async function searchTermSource(
  source: TermSource,
  query: readonly string[],
  opts: { k: number; minScore: number },
): Promise<RankedRef[]> {
  const steps = rank(query, opts);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    const ask = step.value;
    step = steps.next('stats' in ask ? await source.stats(ask.stats) : await source.containing(ask.term, ask.without));
  }
}

/** `searchTermSource` for a synchronous source (better-sqlite3), so the whole search fits in one read transaction. */
export function searchTermSourceSync(
  source: TermSource<'sync'>,
  query: readonly string[],
  opts: { k: number; minScore: number },
): RankedRef[] {
  const steps = rank(query, opts);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    const ask = step.value;
    step = steps.next('stats' in ask ? source.stats(ask.stats) : source.containing(ask.term, ask.without));
  }
}

// The ranking itself, written once: it yields what it needs to read and is resumed with the answer.
// A first BM25 pass as deep as feedback reads, then the feedback words' statistics, then the pool
// ranked again (search/feedback.ts), exactly as the in-process stores rank.
function* rank(query: readonly string[], opts: { k: number; minScore: number }): Generator<Ask, RankedRef[], Answer> {
  const { k, minScore } = opts;
  if (k < 1) return [];
  const pool = yield* firstPass(query, { k: feedbackDepth(k), minScore });
  const feedback = feedbackTerms(query, pool);
  if (feedback.length === 0) return pool.slice(0, k).map(({ ref, score }) => ({ ref, score }));
  const stats = (yield { stats: feedback.map((f) => f.term) }) as TermStats;
  return rankWithFeedback(pool, feedback, { docs: stats.docs, totalLength: stats.totalLength, df: (t) => stats.df.get(t) ?? 0 }, k);
}

/** The BM25 top k, best first (ties: lower `order`), each hit with its index terms. */
function* firstPass(query: readonly string[], opts: { k: number; minScore: number }): Generator<Ask, Array<PoolHit<number>>, Answer> {
  const { k, minScore } = opts;
  if (k < 1) return [];
  const unique = [...new Set(query)];
  const stats = (yield { stats: unique }) as TermStats;
  if (stats.docs === 0) return [];
  const weighted = unique
    .filter((term) => (stats.df.get(term) ?? 0) > 0)
    .map((term) => ({ term, weight: termWeight(stats.docs, stats.df.get(term)!) }))
    .sort((a, b) => b.weight - a.weight);
  if (weighted.length === 0) return [];
  const position = new Map(weighted.map(({ term }, i) => [term, i]));
  const boundFrom = new Float64Array(weighted.length + 1);
  for (let i = weighted.length - 1; i >= 0; i--) boundFrom[i] = boundFrom[i + 1] + weighted[i].weight;
  const { base, lengthWeight } = lengthNorm(stats.docs, stats.totalLength);

  const hits: Array<PoolHit<number> & { order: number }> = [];
  const tf = new Float64Array(weighted.length);
  for (let t = 0; t < weighted.length; t++) {
    if (t > 0 && boundFrom[t] <= threshold(hits, k, minScore)) break;
    const rows = (yield { term: weighted[t].term, without: weighted.slice(0, t).map((w) => w.term) }) as TermCandidate[];
    for (const row of rows) {
      tf.fill(0);
      const terms = row.terms === '' ? [] : row.terms.split(' ');
      // Own terms count 1, context terms (after the mark) CONTEXT_TF, as Bm25Index counts them.
      let weight = 1;
      let length = terms.length;
      for (let i = 0; i < terms.length; i++) {
        if (terms[i] === CONTEXT_MARK) {
          weight = CONTEXT_TF;
          length--;
          continue;
        }
        const at = position.get(terms[i]);
        if (at !== undefined) tf[at] += weight;
      }
      let score = 0;
      // Written exactly as Bm25Index writes it: floating point is not associative.
      for (let i = 0; i < weighted.length; i++)
        if (tf[i] > 0) score += (weighted[i].weight * tf[i]) / (tf[i] + base + lengthWeight * length);
      if (score > minScore) hits.push({ ref: row.ref, order: row.order, score, terms });
    }
  }
  return hits
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, k)
    .map(({ ref, score, terms }) => ({ ref, score, terms }));
}

/** The score an unseen document must beat: the k-th best so far, or minScore while fewer than k. */
function threshold(hits: RankedRef[], k: number, minScore: number): number {
  if (hits.length < k) return minScore;
  const scores = hits.map((h) => h.score).sort((a, b) => b - a);
  return Math.max(scores[k - 1], minScore);
}
