/**
 * Keeps the best `k` (doc, score) pairs seen so far in a min-heap, worst at the root. Ties go to the
 * lower document number (the earlier insertion), so equal scores rank the same way on every run.
 */
export class TopK {
  private readonly docs: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.docs = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  /** Whether the heap holds k pairs (and so `worst` is the score to beat). */
  get full(): boolean {
    return this.k > 0 && this.size === this.k;
  }

  /** The lowest kept score. */
  get worst(): number {
    return this.scores[0];
  }

  /** Whether a candidate would enter the heap; checked before the (costlier) acceptance filter. */
  wouldAccept(doc: number, score: number): boolean {
    return this.size < this.k || this.better(doc, score, 0);
  }

  offer(doc: number, score: number): void {
    if (this.size < this.k) {
      this.docs[this.size] = doc;
      this.scores[this.size] = score;
      this.siftUp(this.size++);
    } else if (this.better(doc, score, 0)) {
      this.docs[0] = doc;
      this.scores[0] = score;
      this.siftDown(0);
    }
  }

  /** The kept pairs, best first. */
  drain(): Array<{ doc: number; score: number }> {
    const out: Array<{ doc: number; score: number }> = [];
    for (let i = 0; i < this.size; i++) out.push({ doc: this.docs[i], score: this.scores[i] });
    return out.sort((a, b) => b.score - a.score || a.doc - b.doc);
  }

  /** Whether (doc, score) ranks above the entry at heap slot `i`. */
  private better(doc: number, score: number, i: number): boolean {
    return score > this.scores[i] || (score === this.scores[i] && doc < this.docs[i]);
  }

  private swap(i: number, j: number): void {
    const doc = this.docs[i];
    const score = this.scores[i];
    this.docs[i] = this.docs[j];
    this.scores[i] = this.scores[j];
    this.docs[j] = doc;
    this.scores[j] = score;
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.better(this.docs[parent], this.scores[parent], i)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.size && this.better(this.docs[worst], this.scores[worst], left)) worst = left;
      if (right < this.size && this.better(this.docs[worst], this.scores[worst], right)) worst = right;
      if (worst === i) break;
      this.swap(i, worst);
      i = worst;
    }
  }
}
