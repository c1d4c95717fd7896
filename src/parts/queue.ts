/**
 * Hands values pushed by a producer (the loop's callbacks) to an async iterator, in order. The
 * producer never waits for the consumer; `fail` makes the iterator throw once the values before it
 * were taken.
 */
export class PartQueue<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;

  push(value: T): void {
    if (this.ended) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting.resolve({ value, done: false });
    } else {
      this.buffer.push(value);
    }
  }

  close(): void {
    this.finish(undefined);
  }

  fail(error: unknown): void {
    this.finish({ error });
  }

  private finish(failure: { error: unknown } | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = failure;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting === undefined) return;
    if (failure !== undefined) waiting.reject(failure.error);
    else waiting.resolve({ value: undefined, done: true });
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0) return Promise.resolve({ value: this.buffer.shift()!, done: false });
    if (this.ended)
      return this.failure !== undefined ? Promise.reject(this.failure.error) : Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}
