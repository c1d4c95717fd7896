import type { RunEvent, RunSnapshot } from '../contract/events.js';

// A run's log, for `forwardRun` in this module only (the class sets it: `#log` is readable there alone);
// undefined for a run this class did not make.
let logOf: (run: Run<RunSnapshot>) => RunLog | undefined;

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

  static {
    logOf = (run) => (#log in run ? run.#log : undefined);
  }

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
 * Hands `run`'s events to `handler` in order, as `RunLog.forward` does: how a sub-agent's run reaches
 * the run that called it (agentTool) without reading it as an async iterable, a promise and a queue
 * turn per event. Returns what delivers whatever is still undelivered at once; undefined for a run
 * this module did not make (an `Agent` of the user's own), which is read as the iterable it is.
 */
export function forwardRun(run: Run<RunSnapshot>, handler: (event: RunEvent) => void): (() => void) | undefined {
  const log = logOf(run);
  if (log === undefined) return undefined;
  log.forward(handler);
  return () => log.flush();
}

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
  #forward: ((event: RunEvent) => void) | undefined;
  // How many events `#forward` was handed, whether a delivery is queued, and what the handler threw.
  #forwarded = 0;
  #queued = false;
  #forwardFailed: { error: unknown } | undefined;

  constructor(readonly runId: string) {}

  /** True while someone reads the events (a reader that has not reached the end). */
  get reading(): boolean {
    return this.#readers > 0;
  }

  push(event: RunEvent): void {
    this.#events.push(event);
    if (this.#forward !== undefined && !this.#queued) {
      this.#queued = true;
      queueMicrotask(this.#deliver);
    }
    this.#notify();
  }

  /**
   * Hands every event to `handler`, those so far and each pushed after, in order, one turn of the
   * microtask queue after it was pushed (every event pushed meanwhile in the same turn): never inside
   * `push`, so a handler whose work makes the run publish again (answering a sub-agent's question)
   * cannot nest one delivery in another or overtake the event being published, as a reader never
   * could. One `forward` per log; it counts as no reader (see `reading`). A handler that throws is
   * handed nothing more, and `flush` throws what it threw.
   */
  forward(handler: (event: RunEvent) => void): void {
    this.#forward = handler;
    if (this.#events.length > 0 && !this.#queued) {
      this.#queued = true;
      queueMicrotask(this.#deliver);
    }
  }

  /** Delivers at once what `forward`'s handler has not been handed yet; throws what the handler threw, if it did. */
  flush(): void {
    this.#deliver();
    if (this.#forwardFailed !== undefined) throw this.#forwardFailed.error;
  }

  // Runs as a microtask: what the handler throws is kept for `flush`, never left uncaught.
  readonly #deliver = (): void => {
    this.#queued = false;
    const handler = this.#forward;
    if (handler === undefined) return;
    try {
      while (this.#forwarded < this.#events.length) handler(this.#events[this.#forwarded++]);
    } catch (error) {
      this.#forward = undefined;
      this.#forwardFailed = { error };
    }
  };

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
