import { Postings } from './postings.js';
import { TopK } from './top-k.js';
import { lengthNorm, termWeight } from './bm25-formula.js';

export type Hit = { doc: number; score: number };

export type IndexSearchOptions = {
  /** Most hits returned. */
  k: number;
  /** Only hits scoring strictly above this. Default 0 (any document sharing a term). */
  minScore?: number;
  /** Filter consulted only for hits that would make the top k (kind filters, excluded tools). */
  accept?: (doc: number) => boolean;
};

/**
 * An incremental BM25 inverted index. `add` returns a document number (never reused, so a stale number
 * can't alias a newer document); `remove` is amortised O(terms of the document). A query touches only
 * the postings of its own terms, accumulates scores in reused typed arrays and keeps the best k in a
 * heap: no per-document work for documents that share no term with the query.
 */
export class Bm25Index {
  private readonly postings = new Map<string, Postings>();
  private docTerms: Array<Postings[] | undefined> = [];
  private lengths = new Float64Array(64);
  private alive = new Uint8Array(64);
  private scores = new Float64Array(64);
  private stamps = new Uint32Array(64);
  private touched = new Int32Array(64);
  private epoch = 0;
  private nextDoc = 0;
  private liveDocs = 0;
  private lengthSum = 0;

  /** Live documents. */
  get size(): number {
    return this.liveDocs;
  }

  /** Terms of every live document, repeats counted: what length normalisation divides by. */
  get totalLength(): number {
    return this.lengthSum;
  }

  /** Live documents holding `term`: what its idf is computed from. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.live ?? 0;
  }

  has(doc: number): boolean {
    return doc >= 0 && doc < this.nextDoc && this.alive[doc] === 1;
  }

  /**
   * Adds a document of `terms`, with `context` terms counting half as much each (see term-list.ts);
   * its length counts both. Frequencies are kept in half units, so they stay whole numbers.
   */
  add(terms: readonly string[], context: readonly string[] = []): number {
    const doc = this.nextDoc++;
    this.ensureCapacity(this.nextDoc);
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 2);
    for (const term of context) counts.set(term, (counts.get(term) ?? 0) + 1);
    const lists: Postings[] = [];
    for (const [term, count] of counts) {
      let list = this.postings.get(term);
      if (!list) {
        list = new Postings(term);
        this.postings.set(term, list);
      }
      list.push(doc, count);
      lists.push(list);
    }
    this.docTerms[doc] = lists;
    this.lengths[doc] = terms.length + context.length;
    this.alive[doc] = 1;
    this.liveDocs++;
    this.lengthSum += terms.length + context.length;
    return doc;
  }

  /** Returns false if `doc` was not a live document. */
  remove(doc: number): boolean {
    if (!this.has(doc)) return false;
    this.alive[doc] = 0;
    this.liveDocs--;
    this.lengthSum -= this.lengths[doc];
    for (const list of this.docTerms[doc] ?? []) {
      list.dead++;
      if (list.live === 0) this.postings.delete(list.term);
      else if (list.dead * 2 > list.length) list.compact(this.alive);
    }
    this.docTerms[doc] = undefined;
    return true;
  }

  /**
   * The best documents for `terms` (repeats count once), best first. Rare terms are scored first; once
   * the k-th best score so far beats the most the remaining (common, low-idf) terms could add, those
   * terms only top up documents already in play. Long postings lists of common words then cost a walk,
   * not a flood of new candidates for the heap: the MaxScore idea, exact because a document's final
   * score is never lower than its partial one.
   */
  search(terms: readonly string[], options: IndexSearchOptions): Hit[] {
    const { k, minScore = 0, accept } = options;
    if (k < 1 || this.liveDocs === 0) return [];
    const n = this.liveDocs;
    const weighted: Array<{ list: Postings; weight: number }> = [];
    for (const term of new Set(terms)) {
      const list = this.postings.get(term);
      if (list) weighted.push({ list, weight: termWeight(n, list.live) });
    }
    if (weighted.length === 0) return [];
    weighted.sort((a, b) => b.weight - a.weight);
    // A term adds at most its weight (the tf factor stays below 1), so this bounds what is left to add.
    const boundFrom = new Float64Array(weighted.length + 1);
    for (let i = weighted.length - 1; i >= 0; i--) boundFrom[i] = boundFrom[i + 1] + weighted[i].weight;

    const epoch = this.nextEpoch();
    const { scores, stamps, touched, lengths, alive } = this;
    const { base, lengthWeight } = lengthNorm(n, this.lengthSum);
    let touchedCount = 0;
    let admitting = true;
    for (let t = 0; t < weighted.length; t++) {
      const { list, weight } = weighted[t];
      // No partial score can exceed what the terms so far could add; below the bound, skip the threshold pass.
      if (admitting && t > 0 && (boundFrom[0] - boundFrom[t] >= boundFrom[t] || minScore >= boundFrom[t])) {
        if (boundFrom[t] <= this.threshold(touchedCount, k, minScore, accept)) admitting = false;
      }
      const { docs, freqs, length } = list;
      // Common terms have long lists: a list without tombstones skips the liveness test, and one that
      // only tops up skips the admission branch (a document stamped this query was alive when admitted).
      const checkAlive = list.dead > 0;
      if (admitting) {
        for (let i = 0; i < length; i++) {
          const doc = docs[i];
          if (checkAlive && alive[doc] === 0) continue;
          const tf = freqs[i] * 0.5;
          const part = (weight * tf) / (tf + base + lengthWeight * lengths[doc]);
          if (stamps[doc] === epoch) scores[doc] += part;
          else {
            stamps[doc] = epoch;
            scores[doc] = part;
            touched[touchedCount++] = doc;
          }
        }
      } else {
        for (let i = 0; i < length; i++) {
          const doc = docs[i];
          if (stamps[doc] !== epoch) continue;
          const tf = freqs[i] * 0.5;
          scores[doc] += (weight * tf) / (tf + base + lengthWeight * lengths[doc]);
        }
      }
    }
    return this.best(touchedCount, k, minScore, accept).drain();
  }

  /** The score a document not yet in play would have to beat: the k-th best so far, or minScore. */
  private threshold(touchedCount: number, k: number, minScore: number, accept: IndexSearchOptions['accept']): number {
    if (touchedCount < k) return minScore;
    const top = this.best(touchedCount, k, minScore, accept);
    return top.full ? Math.max(top.worst, minScore) : minScore;
  }

  private best(touchedCount: number, k: number, minScore: number, accept: IndexSearchOptions['accept']): TopK {
    const { scores, touched } = this;
    const top = new TopK(Math.min(k, touchedCount));
    for (let i = 0; i < touchedCount; i++) {
      const doc = touched[i];
      const score = scores[doc];
      if (score > minScore && top.wouldAccept(doc, score) && (accept === undefined || accept(doc))) top.offer(doc, score);
    }
    return top;
  }

  private nextEpoch(): number {
    if (this.epoch === 0xffffffff) {
      this.stamps.fill(0);
      this.epoch = 0;
    }
    return ++this.epoch;
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.alive.length) return;
    let capacity = this.alive.length;
    while (capacity < needed) capacity *= 2;
    const grow = <T extends Float64Array | Uint8Array | Uint32Array | Int32Array>(old: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.lengths = grow(this.lengths, (c) => new Float64Array(c));
    this.alive = grow(this.alive, (c) => new Uint8Array(c));
    this.scores = new Float64Array(capacity);
    this.stamps = new Uint32Array(capacity);
    this.touched = new Int32Array(capacity);
  }
}
