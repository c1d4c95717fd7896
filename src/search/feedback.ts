// Pseudo-relevance feedback (RM3's idea, kept small and deterministic): the words the best first-pass
// hits share, that the query did not say, are added to the query at a fraction of a query word's
// weight, and the first pass's candidates are ranked again. A question ("What did Caroline research?")
// and the turn that answers it ("...looking into adoption agencies") often share few words, while the
// turns around the answer share the answer's own words: feedback lets those words count. Only the
// first pass's candidates are ranked again, so feedback reorders what the query found and never brings
// in a record that shares no word with it.
import { lengthNorm, termWeight } from './bm25-formula.js';
import { termFrequencies, termLength } from './term-list.js';

/** How many of the best first-pass hits vote for feedback words. */
export const FEEDBACK_DOCS = 5;
/** A word must appear in at least this many of those hits: one hit's own words are not a shared topic. */
export const FEEDBACK_MIN_DOCS = 2;
/** At most this many feedback words are added. */
export const FEEDBACK_TERMS = 10;
/**
 * The heaviest feedback word counts this much of a query word; the others proportionally less. Measured
 * on LoCoMo's dev half (docs/memory.md): 0.15 kept recall@5 where it was without feedback and raised
 * recall@10 by a point; 0.3 raised recall@10 as much but cost a point of recall@5.
 */
export const FEEDBACK_WEIGHT = 0.15;

/** How deep the first pass is read for a search asking for `k` records: the candidates feedback may reorder. */
export function feedbackDepth(k: number): number {
  return Math.max(k * 3, 30);
}

/** A first-pass hit: its key, its BM25 score and its term list as stored (repeats count; see term-list.ts). */
export type PoolHit<R> = { ref: R; score: number; terms: readonly string[] };

export type FeedbackTerm = { term: string; weight: number };

/**
 * The feedback words of a best-first pool: terms outside the query that at least FEEDBACK_MIN_DOCS of
 * the FEEDBACK_DOCS best hits hold, weighed as relevance models weigh them (each hit's share of the
 * top scores times the term's share of the hit's terms, summed) and scaled so the heaviest weighs
 * FEEDBACK_WEIGHT. The FEEDBACK_TERMS heaviest are kept, ties by the term itself, so the choice is the
 * same on every run and in every store.
 */
export function feedbackTerms<R>(query: readonly string[], pool: ReadonlyArray<PoolHit<R>>): FeedbackTerm[] {
  const top = pool.slice(0, FEEDBACK_DOCS);
  if (top.length < FEEDBACK_MIN_DOCS) return [];
  const asked = new Set(query);
  const total = top.reduce((sum, hit) => sum + hit.score, 0);
  if (!(total > 0)) return [];
  const mass = new Map<string, { docs: number; weight: number }>();
  for (const hit of top) {
    const counts = termFrequencies(hit.terms);
    let size = 0;
    for (const count of counts.values()) size += count;
    if (size === 0) continue;
    const share = hit.score / total / size;
    for (const [term, count] of counts) {
      if (asked.has(term)) continue;
      const seen = mass.get(term);
      if (seen === undefined) mass.set(term, { docs: 1, weight: share * count });
      else {
        seen.docs++;
        seen.weight += share * count;
      }
    }
  }
  const chosen = [...mass]
    .filter(([, m]) => m.docs >= FEEDBACK_MIN_DOCS)
    .sort((a, b) => b[1].weight - a[1].weight || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, FEEDBACK_TERMS);
  if (chosen.length === 0) return [];
  const heaviest = chosen[0][1].weight;
  return chosen.map(([term, m]) => ({ term, weight: (FEEDBACK_WEIGHT * m.weight) / heaviest }));
}

/**
 * The pool ranked again with the feedback words added: each hit's first-pass score plus, per feedback
 * word it holds, that word's weight times its BM25 part (the same formula and statistics as the first
 * pass). Best first; ties keep the first pass's order. Returns the best `k`.
 */
export function rankWithFeedback<R>(
  pool: ReadonlyArray<PoolHit<R>>,
  feedback: readonly FeedbackTerm[],
  stats: { docs: number; totalLength: number; df: (term: string) => number },
  k: number,
): Array<{ ref: R; score: number }> {
  if (feedback.length === 0) return pool.slice(0, k).map(({ ref, score }) => ({ ref, score }));
  const { base, lengthWeight } = lengthNorm(stats.docs, stats.totalLength);
  const weighted = new Map<string, number>();
  for (const { term, weight } of feedback) {
    const df = stats.df(term);
    if (df > 0) weighted.set(term, weight * termWeight(stats.docs, df));
  }
  return pool
    .map((hit, order) => {
      const tf = termFrequencies(hit.terms);
      const length = termLength(hit.terms);
      let score = hit.score;
      // Summed in the feedback words' order, not the hit's: hits holding the same words tie exactly.
      for (const [term, weight] of weighted) {
        const count = tf.get(term);
        if (count !== undefined) score += (weight * count) / (count + base + lengthWeight * length);
      }
      return { ref: hit.ref, score, order };
    })
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, k)
    .map(({ ref, score }) => ({ ref, score }));
}
