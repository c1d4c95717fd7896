import { RunAbortedError } from './errors.js';

/**
 * Races work against one run's signal: `race(p)` settles with `p`, or rejects with `RunAbortedError` as
 * soon as the signal fires, whichever comes first. The loop never waits on work that ignores its
 * signal; that work's late outcome is dropped. One listener per run rather than one per call keeps the
 * per-step cost down.
 */
export class AbortRace {
  private readonly waiting = new Set<(error: unknown) => void>();
  private readonly onAbort = (): void => {
    const error = new RunAbortedError({ cause: this.signal.reason });
    for (const reject of this.waiting) reject(error);
    this.waiting.clear();
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
      this.waiting.add(reject);
      promise.then(
        (value) => {
          this.waiting.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.waiting.delete(reject);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

// The run has already ended as aborted; whatever the abandoned work does later has nowhere to go.
function ignoreLateOutcome(): void {}
