import type { RunEvent, RunSnapshot } from '../contract/events.js';

/**
 * One run of an agent (`submit`, `approve`, `reject`, `continue`): a promise of its final snapshot,
 * so `await agent.submit(...)` reads as it always did, and an async iterable of exactly its own
 * events, each stamped with `runId`. The events are kept from the moment the run is created, so
 * iterating late (even after it ended) misses nothing; the iteration ends after the run's last event
 * and throws the run's `RunFault` when it faulted. Leaving the iteration early stops reading, not the
 * run (`agent.abort()` stops the run).
 */
export class Run<T extends RunSnapshot = RunSnapshot> extends Promise<T> implements AsyncIterable<RunEvent> {
  // `then`, `catch` and `finally` return plain promises: a derived promise is not another run.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** Made by the conductor only: `log` receives the run's events, `outcome` settles it. */
  static of<T extends RunSnapshot>(log: RunLog, outcome: Promise<T>): Run<T> {
    let settle!: { resolve: (value: T) => void; reject: (error: unknown) => void };
    const run = new Run<T>((resolve, reject) => {
      settle = { resolve, reject };
    });
    run.#log = log;
    outcome.then(
      (value) => {
        log.end();
        settle.resolve(value);
      },
      (error: unknown) => {
        log.end(error);
        settle.reject(error);
      },
    );
    return run;
  }

  /**
   * A run with `run`'s id and events that settles with `outcome` instead: how a decorator (telemetry)
   * wraps a run, finishing its own work before the caller sees the snapshot.
   */
  static following<T extends RunSnapshot>(run: Run<RunSnapshot>, outcome: Promise<T>): Run<T> {
    return Run.of(run.#log, outcome);
  }

  #log!: RunLog;

  /** Unique per run; every event of this run carries it. */
  get runId(): string {
    return this.#log.runId;
  }

  [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    // Whoever reads the events learns of a fault from them (and the throw at their end): the promise
    // side must not also surface it as an unhandled rejection.
    this.catch(ignore);
    return this.#log.reader();
  }
}

function ignore(): void {}

/**
 * The events of one run, in order, kept for its `Run`'s readers. Appending is a push; readers wait on
 * one shared promise that the next event (or the end) settles.
 */
export class RunLog {
  readonly #events: RunEvent[] = [];
  #ended = false;
  #error: unknown = undefined;
  #faulted = false;
  #wake: (() => void) | undefined;
  #next: Promise<void> | undefined;
  #readers = 0;

  constructor(readonly runId: string) {}

  /** True while someone reads the events (a reader that has not reached the end). */
  get reading(): boolean {
    return this.#readers > 0;
  }

  push(event: RunEvent): void {
    this.#events.push(event);
    this.#notify();
  }

  end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    if (error !== undefined) {
      this.#faulted = true;
      this.#error = error;
    }
    this.#notify();
  }

  reader(): AsyncIterator<RunEvent> {
    let index = 0;
    let done = false;
    this.#readers++;
    const stop = (): void => {
      if (done) return;
      done = true;
      this.#readers--;
    };
    const next = async (): Promise<IteratorResult<RunEvent>> => {
      for (;;) {
        if (done) return { done: true, value: undefined };
        if (index < this.#events.length) return { done: false, value: this.#events[index++] };
        if (this.#ended) {
          stop();
          if (this.#faulted) throw this.#error;
          return { done: true, value: undefined };
        }
        await this.#waitForMore();
      }
    };
    return {
      next,
      return: async () => {
        stop();
        return { done: true, value: undefined };
      },
    };
  }

  #waitForMore(): Promise<void> {
    this.#next ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#next;
  }

  #notify(): void {
    const wake = this.#wake;
    if (wake === undefined) return;
    this.#wake = undefined;
    this.#next = undefined;
    wake();
  }
}
