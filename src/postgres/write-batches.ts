/** How one item of a batch went. */
export type Settled<Result> = { ok: true; value: Result } | { ok: false; error: unknown };

export type WriteBatchLimits = {
  /** Batches in flight at once. */
  slots: number;
  /** Items one batch takes at most; the rest wait for the next. */
  maxItems: number;
  /** Items a batch takes at least when a burst is spread over several free slots. */
  minItems: number;
};

/**
 * Joins writes that arrive together into statements, as a database's group commit joins commits.
 * A write waits only for the end of the current turn of the event loop (`setImmediate`, no timer), so
 * that writes queued by one burst of callbacks (fifty sessions whose previous writes just landed)
 * leave together, and a lone write goes almost at once. A burst is spread over the free slots (at
 * least `minItems` to a batch), so the database works on its batches side by side; once `slots`
 * batches are in flight, new writes wait for one to end. Under load a round trip, a statement and a
 * commit are shared by every write of a batch.
 */
export class WriteBatches<Item, Result> {
  private pending: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * `flush` writes a batch and answers each of its items, in order: a result, or the error that item
   * alone failed with. A `flush` that rejects fails every item of its batch with that error.
   */
  constructor(
    private readonly flush: (items: Item[]) => Promise<Array<Settled<Result>>>,
    private readonly limits: WriteBatchLimits,
  ) {}

  write(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    // A burst is spread over the free slots, so the database works on its batches side by side.
    const free = this.limits.slots - this.inFlight;
    const size = Math.min(this.limits.maxItems, Math.max(this.limits.minItems, Math.ceil(this.pending.length / Math.max(free, 1))));
    while (this.inFlight < this.limits.slots && this.pending.length > 0) {
      const batch = this.pending.splice(0, size);
      this.inFlight++;
      this.flush(batch.map((entry) => entry.item))
        .then(
          (results) => {
            batch.forEach((entry, i) => {
              const settled = results[i];
              if (settled.ok) entry.resolve(settled.value);
              else entry.reject(settled.error);
            });
          },
          (error: unknown) => {
            for (const entry of batch) entry.reject(error);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}
