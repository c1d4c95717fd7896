import type { AgentPart } from '../parts/types.js';
import { InvalidStreamError, describeValue } from '../parts/errors.js';
import { assertAgentPart } from '../parts/validate.js';
import { ClientDisconnectedError } from './errors.js';
import { encodePartFrame, publicErrorInfo } from './frames.js';
import type { RemoteErrorInfo } from './frames.js';

/**
 * What a part stream sends: an async iterable of parts, or a function that gets an `AbortSignal`
 * (fired when the client goes away) and returns one, e.g. `(signal) => runAgent({ ..., signal })`.
 */
export type PartSource = AsyncIterable<AgentPart> | ((signal: AbortSignal) => AsyncIterable<AgentPart> | Promise<AsyncIterable<AgentPart>>);

export type PartStreamOptions = {
  /**
   * Called with every error the source raises. `afterDisconnect` marks errors raised once the client
   * had gone, usually the source reacting to the abort. Default: `console.error`, except for those.
   */
  onError?: (error: unknown, info: { afterDisconnect: boolean }) => void;
  /** What the client's error frame says about an error. Default: `publicErrorInfo`. */
  describeError?: (error: unknown) => RemoteErrorInfo;
};

/** How a part stream ended: with its end frame, with an error frame, or with the client gone. */
export type PartStreamOutcome = 'completed' | 'failed' | 'disconnected';

const CANCELLED = Symbol('cancelled');

const logError: NonNullable<PartStreamOptions['onError']> = (error, { afterDisconnect }) => {
  if (!afterDisconnect) console.error('[indusagi] a part stream source failed:', error);
};

/**
 * Pulls a `PartSource` one frame at a time, so the consumer (a node response, a web stream) sets the
 * pace. `cancel()` fires the source's signal and calls its iterator's `return()` even while a pull
 * is pending, so a source stuck waiting on a model is released as soon as the client leaves.
 */
export class PartPump {
  private readonly controller = new AbortController();
  /** Ends the pull in progress, if any, when the stream is cancelled. */
  private interrupt: (() => void) | null = null;
  private opening: Promise<AsyncIterator<AgentPart>> | null = null;
  private opened: AsyncIterator<AgentPart> | null = null;
  private closing: Promise<void> = Promise.resolve();
  private ended: PartStreamOutcome | null = null;

  constructor(
    private readonly source: PartSource,
    private readonly options: PartStreamOptions = {},
  ) {}

  /** Null while the stream runs. */
  get outcome(): PartStreamOutcome | null {
    return this.ended;
  }

  /** The next line to send, or null when nothing more is to be sent. The source's errors become an error frame, never a rejection. */
  async next(): Promise<string | null> {
    if (this.ended !== null) return null;
    let step: IteratorResult<AgentPart>;
    try {
      if (this.opened === null) {
        const iterator = await this.untilCancelled(this.iterator());
        if (iterator === CANCELLED) return null;
        this.opened = iterator;
      }
      const iterator = this.opened;
      const result = await this.untilCancelled(iterator.next());
      if (result === CANCELLED) return null;
      step = result;
    } catch (error) {
      // The source itself threw, so it is finished already: nothing to close.
      return this.fail(error, false);
    }
    if (step.done) {
      this.ended = 'completed';
      return encodePartFrame({ frame: 'end' });
    }
    try {
      assertAgentPart(step.value);
      return encodePartFrame({ frame: 'part', part: step.value });
    } catch (error) {
      return this.fail(error, true);
    }
  }

  /** Stops the stream because the client left (`reason` becomes the signal's reason). Resolves once the source is closed. */
  cancel(reason: unknown = new ClientDisconnectedError()): Promise<void> {
    if (this.ended === null) {
      this.ended = 'disconnected';
      this.controller.abort(reason);
      this.interrupt?.();
      this.closing = this.close(true);
    }
    return this.closing;
  }

  /** Resolves once the source has been closed (immediately if it ended by itself). */
  closed(): Promise<void> {
    return this.closing;
  }

  private iterator(): Promise<AsyncIterator<AgentPart>> {
    this.opening ??= (async () => {
      const iterable = typeof this.source === 'function' ? await this.source(this.controller.signal) : this.source;
      if (typeof (iterable as AsyncIterable<AgentPart> | null)?.[Symbol.asyncIterator] !== 'function') {
        throw new InvalidStreamError(`A part source must be (or return) an AsyncIterable of AgentParts; got ${describeValue(iterable)}.`);
      }
      return iterable[Symbol.asyncIterator]();
    })();
    return this.opening;
  }

  /**
   * Waits for `promise` unless the stream is cancelled first; a rejection that comes later still
   * reaches onError. (Not a race against one long-lived "cancelled" promise: that would keep a
   * reaction per pull alive for the whole stream.)
   */
  private untilCancelled<T>(pending: T | Promise<T>): Promise<T | typeof CANCELLED> {
    // A hand-written iterator may answer next() with a plain object.
    const promise = Promise.resolve(pending);
    return new Promise<T | typeof CANCELLED>((resolve, reject) => {
      const interrupt = () => {
        promise.then(undefined, (error: unknown) => this.report(error, true));
        resolve(CANCELLED);
      };
      if (this.controller.signal.aborted) return interrupt();
      this.interrupt = interrupt;
      const settle = () => {
        if (this.interrupt === interrupt) this.interrupt = null;
      };
      promise.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }

  private async fail(error: unknown, closeSource: boolean): Promise<string> {
    this.ended = 'failed';
    this.report(error, false);
    if (closeSource) {
      this.closing = this.close(false);
      await this.closing;
    }
    try {
      return encodePartFrame({ frame: 'error', error: (this.options.describeError ?? publicErrorInfo)(error) });
    } catch (describeFailure) {
      // A broken describeError must not cost the client its error frame; it is reported like any other error.
      this.report(describeFailure, false);
      return encodePartFrame({ frame: 'error', error: publicErrorInfo(error) });
    }
  }

  private async close(afterDisconnect: boolean): Promise<void> {
    if (this.opening === null) return;
    // A failed open needs no closing, and its error already went to onError through untilCancelled().
    const iterator = await this.opening.catch(() => null);
    if (iterator === null || typeof iterator.return !== 'function') return;
    try {
      await iterator.return();
    } catch (error) {
      this.report(error, afterDisconnect);
    }
  }

  private report(error: unknown, afterDisconnect: boolean): void {
    (this.options.onError ?? logError)(error, { afterDisconnect });
  }
}
