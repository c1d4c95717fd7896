import { StreamIdleError } from './errors.js';

/**
 * The idle timeout of one model call: its `signal` (handed to the SDK in place of the caller's) fires
 * when the caller's does, or when no content arrived for `timeoutMs` since `begin()` or the last
 * `touch()`. Only content touches it, so a server that sends nothing but keep-alives still times out.
 * The timer is not reset per event: it fires at the deadline and re-arms itself if content came since,
 * so a fast stream costs one timestamp per event.
 */
export class IdleWatch {
  private readonly controller = new AbortController();
  private readonly stopped: Promise<never>;
  private readonly forwardAbort: () => void;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastContent = performance.now();
  private failure: StreamIdleError | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    const signal = this.controller.signal;
    this.stopped = new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    // Nobody may be racing it when it fires; the rejection is read through `race` or not at all.
    this.stopped.catch(() => undefined);
    this.forwardAbort = () => this.controller.abort(outer?.reason);
    if (outer?.aborted) this.controller.abort(outer.reason);
    else outer?.addEventListener('abort', this.forwardAbort, { once: true });
  }

  /**
   * Starts the clock: at the request, or where an SDK retries failed requests inside one call (the
   * `openai` client), once the response arrived, so its own waits between attempts do not count.
   */
  begin(): this {
    this.lastContent = performance.now();
    if (this.timeoutMs !== Infinity && this.timer === undefined && !this.controller.signal.aborted) this.arm(this.timeoutMs);
    return this;
  }

  /** Fires on the caller's abort or the idle timeout; `idle` says which. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The timeout's error once it fired: the stream stalled (not the caller's abort). */
  get idle(): StreamIdleError | undefined {
    return this.failure;
  }

  /** A content event arrived: the wait starts again. */
  touch(): void {
    this.lastContent = performance.now();
  }

  /**
   * `promise`, or a rejection as soon as the signal fires, whether or not the SDK behind `promise`
   * honours the signal (an AI SDK model that ignores `abortSignal` must not hang the run).
   */
  race<T>(promise: PromiseLike<T>): Promise<T> {
    const settled = Promise.resolve(promise);
    // When the signal wins, the SDK's own rejection may come later; it is expected, not unhandled.
    settled.catch(() => undefined);
    return Promise.race([settled, this.stopped]);
  }

  /**
   * The items of `iterable`, each wait for the next one raced against the signal (see `race`). Leaving
   * early (a break, a throw, the signal) returns the SDK's iterator, which closes its request.
   */
  async *read<T>(iterable: AsyncIterable<T>): AsyncGenerator<T> {
    const iterator = iterable[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        const next = await this.race(iterator.next());
        if (next.done) {
          finished = true;
          return;
        }
        yield next.value;
      }
    } finally {
      if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
  }

  /** Stops the timer and lets go of the caller's signal. */
  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.forwardAbort);
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(() => {
      const quiet = performance.now() - this.lastContent;
      if (quiet < this.timeoutMs) return this.arm(this.timeoutMs - quiet);
      this.failure = new StreamIdleError(this.timeoutMs);
      this.controller.abort(this.failure);
      this.outer?.removeEventListener('abort', this.forwardAbort);
    }, delayMs);
  }
}
