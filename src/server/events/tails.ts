import type { StoredEvent } from '../types.js';
import { isTerminal } from './terminal.js';

/** Where a tail reads a run's stored events from: the database, or this process's log. */
export interface TailSource {
  /** The run's events with ids above `afterId`, in order (possibly only the first of them). */
  fetchAfter(runId: string, afterId: number): Promise<StoredEvent[]>;
}

/**
 * One run's events as this process has read them so far, shared by every client that follows the run
 * here: a notification costs one read per process, however many clients watch. Ids are contiguous
 * from 1, so `events[i]` has id `i + 1` and a client's position is just the last id it got.
 */
export class RunTail {
  readonly events: StoredEvent[] = [];
  /** The terminal event (`settled` or `faulted`) is in: nothing follows it. */
  complete = false;
  private wake: (() => void) | undefined;
  private next: Promise<void> | undefined;

  constructor(readonly runId: string) {}

  get lastId(): number {
    return this.events.length;
  }

  /** Takes in fetched events; one that does not continue the tail (read twice, or ahead of a gap) is left for the next read. */
  add(events: readonly StoredEvent[]): void {
    let grew = false;
    for (const stored of events) {
      if (this.complete || stored.id !== this.events.length + 1) continue;
      this.events.push(stored);
      grew = true;
      if (isTerminal(stored.event)) this.complete = true;
    }
    if (grew) this.notify();
  }

  /** The events after id `afterId` that are in. */
  after(afterId: number): StoredEvent[] {
    return this.events.slice(Math.max(0, afterId));
  }

  /** Resolves once there is an event after `afterId`, the tail is complete, or `signal` fires. */
  changed(afterId: number, signal?: AbortSignal): Promise<void> {
    if (this.events.length > afterId || this.complete || signal?.aborted) return Promise.resolve();
    this.next ??= new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    if (signal === undefined) return this.next;
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      void this.next!.then(done);
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    this.next = undefined;
    wake?.();
  }
}

type Entry = { tail: RunTail; refs: number; reading: Promise<void> | undefined; again: boolean };

/** A held tail; `release` when the client is gone (the last release forgets the tail). */
export type TailHandle = { tail: RunTail; release(): void };

/**
 * The tails this process follows, fed by notifications ("run R has events up to N"): a tail reads
 * from its source only when told there is more than it has, and one read at a time.
 */
export class RunTails {
  private readonly open = new Map<string, Entry>();

  constructor(private readonly source: TailSource) {}

  /** The run's tail, read from the start when nobody here follows the run yet. */
  hold(runId: string): TailHandle {
    let entry = this.open.get(runId);
    if (entry === undefined) {
      entry = { tail: new RunTail(runId), refs: 0, reading: undefined, again: false };
      this.open.set(runId, entry);
      this.read(entry);
    }
    entry.refs++;
    const held = entry;
    let released = false;
    return {
      tail: held.tail,
      release: () => {
        if (released) return;
        released = true;
        if (--held.refs === 0 && this.open.get(runId) === held) this.open.delete(runId);
      },
    };
  }

  /** A writer stored events of `runId` up to `lastId`: tails that lack them read again. */
  notify(runId: string, lastId: number): void {
    const entry = this.open.get(runId);
    if (entry !== undefined && entry.tail.lastId < lastId && !entry.tail.complete) this.read(entry);
  }

  /** Every tail reads again: after a lost notification channel, anything may have been missed. */
  refreshAll(): void {
    for (const entry of this.open.values()) if (!entry.tail.complete) this.read(entry);
  }

  /** How many runs this process follows (for health). */
  get followed(): number {
    return this.open.size;
  }

  /** Reads what the tail lacks; a read asked for while one is under way runs once more after it. */
  private read(entry: Entry): void {
    if (entry.reading !== undefined) {
      entry.again = true;
      return;
    }
    entry.reading = (async () => {
      do {
        entry.again = false;
        for (;;) {
          const events = await this.source.fetchAfter(entry.tail.runId, entry.tail.lastId);
          const before = entry.tail.lastId;
          entry.tail.add(events);
          // A page came back whole: there may be more behind it.
          if (events.length === 0 || entry.tail.lastId === before || entry.tail.complete) break;
        }
      } while (entry.again && !entry.tail.complete);
    })()
      .catch((error: unknown) => {
        // The next notification (or refreshAll after a reconnect) reads again; say why this one failed.
        console.error(`[indusagi server] reading the events of run ${entry.tail.runId} failed:`, error);
      })
      .finally(() => {
        entry.reading = undefined;
      });
  }
}
