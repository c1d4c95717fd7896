import { RunAbortedError } from './errors.js';

/**
 * Races work against one run's signal: `race(p)` settles with `p`, or rejects with `RunAbortedError` as
 * soon as the signal fires, whichever comes first. The loop never waits on work that ignores its
 * signal; that work's late outcome is dropped. One listener per run rather than one per call keeps the
 * per-step cost down.
 */
export class AbortRace {
  // The rejects of the races still waiting. The loop races one thing at a time, so the first waits in
  // a slot of its own: a Set's add and delete (and its shrinking) on every model and tool call cost
  // more than the step's other bookkeeping. Races made while one waits go in the Set.
  private one: ((error: unknown) => void) | undefined;
  private more: Set<(error: unknown) => void> | undefined;
  private readonly onAbort = (): void => {
    const error = new RunAbortedError({ cause: this.signal.reason });
    const one = this.one;
    const more = this.more;
    this.one = undefined;
    this.more = undefined;
    one?.(error);
    if (more !== undefined) for (const reject of more) reject(error);
  };

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  race<T>(promise: Promise<T>): Promise<T> {
    if (this.signal.aborted) {
      promise.catch(ignoreLateOutcome);
      return Promise.reject(new RunAbortedError({ cause: this.signal.reason }));
    }
    return new Promise<T>((resolve, reject) => {
      this.hold(reject);
      promise.then(
        (value) => {
          this.drop(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.drop(reject);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }

  private hold(reject: (error: unknown) => void): void {
    if (this.one === undefined) this.one = reject;
    else (this.more ??= new Set()).add(reject);
  }

  private drop(reject: (error: unknown) => void): void {
    if (this.one === reject) this.one = undefined;
    else this.more?.delete(reject);
  }
}

// The run has already ended as aborted; whatever the abandoned work does later has nowhere to go.
function ignoreLateOutcome(): void {}
