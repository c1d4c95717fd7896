import type { AgentPart } from '../../src/parts/index.js';

/**
 * An async iterable a test feeds by hand, so it decides exactly when each part arrives, when the
 * stream ends and whether it fails. It records whether its consumer closed it early.
 */
export class PartChannel implements AsyncIterable<AgentPart> {
  closedEarly = false;
  private queue: Array<IteratorResult<AgentPart> | { error: unknown }> = [];
  private waiting: ((value: IteratorResult<AgentPart> | { error: unknown }) => void) | null = null;
  private pulls = 0;
  private pullWaiters: Array<{ count: number; resolve: () => void }> = [];

  push(...parts: AgentPart[]): void {
    for (const part of parts) this.deliver({ value: part, done: false });
  }

  end(): void {
    this.deliver({ value: undefined, done: true });
  }

  fail(error: unknown): void {
    this.deliver({ error });
  }

  /** Resolves once the consumer has asked for `count` items in total, i.e. has taken everything pushed so far. */
  pulled(count: number): Promise<void> {
    if (this.pulls >= count) return Promise.resolve();
    return new Promise((resolve) => this.pullWaiters.push({ count, resolve }));
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentPart> {
    return {
      next: () => {
        this.pulls++;
        for (const waiter of this.pullWaiters.filter((w) => w.count <= this.pulls)) waiter.resolve();
        this.pullWaiters = this.pullWaiters.filter((w) => w.count > this.pulls);
        const queued = this.queue.shift();
        if (queued) return settle(queued);
        return new Promise((resolve) => {
          this.waiting = resolve;
        }).then((value) => settle(value as IteratorResult<AgentPart> | { error: unknown }));
      },
      return: async () => {
        this.closedEarly = true;
        return { value: undefined, done: true };
      },
    };
  }

  private deliver(value: IteratorResult<AgentPart> | { error: unknown }): void {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = null;
      waiting(value);
    } else {
      this.queue.push(value);
    }
  }
}

function settle(value: IteratorResult<AgentPart> | { error: unknown }): Promise<IteratorResult<AgentPart>> {
  return 'error' in value ? Promise.reject(value.error) : Promise.resolve(value);
}

export const text = (t: string): AgentPart => ({ type: 'text', text: t });

export const tool = (callId: string, extra: Partial<Extract<AgentPart, { type: 'tool' }>> = {}): AgentPart => ({
  type: 'tool',
  name: 'notes.list',
  callId,
  input: {},
  result: ['a'],
  ...extra,
});
