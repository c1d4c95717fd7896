/**
 * Runs operations one at a time, in call order: concurrent `submit`s (and approvals, resumes) on one
 * agent queue behind each other and never interleave. Each caller gets its own operation's outcome; a
 * failure never stops the queue.
 */
export class RunQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.tail.then(operation);
    this.tail = result.then(settledAnyway, settledAnyway);
    return result;
  }
}

// The caller already holds `result` and sees its failure; the queue only needs to know it is over.
function settledAnyway(): void {}
