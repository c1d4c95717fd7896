/**
 * One term's postings: the documents that contain it and how often, in two parallel typed arrays so a
 * query walks them without allocating. Removed documents stay as tombstones until they make up half
 * the list, then the list is compacted: removal is amortised O(1) per term instead of a search.
 */
export class Postings {
  docs = new Int32Array(4);
  freqs = new Int32Array(4);
  length = 0;
  dead = 0;

  constructor(readonly term: string) {}

  get live(): number {
    return this.length - this.dead;
  }

  push(doc: number, freq: number): void {
    if (this.length === this.docs.length) {
      const docs = new Int32Array(this.docs.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const freqs = new Int32Array(this.freqs.length * 2);
      freqs.set(this.freqs);
      this.freqs = freqs;
    }
    this.docs[this.length] = doc;
    this.freqs[this.length] = freq;
    this.length++;
  }

  /** Drops the entries of documents no longer alive. */
  compact(alive: Uint8Array): void {
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const doc = this.docs[i];
      if (alive[doc] === 1) {
        this.docs[kept] = doc;
        this.freqs[kept] = this.freqs[i];
        kept++;
      }
    }
    this.length = kept;
    this.dead = 0;
  }
}
