import { RunAbortedError } from '../runtime/loop/errors.js';

/**
 * At most `limit` holders at once, the rest served in the order they asked. Kept per calling run, so
 * one run's sub-agents never wait on another's.
 */
export class Slots {
  #held = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get idle(): boolean {
    return this.#held === 0 && this.#waiting.length === 0;
  }

  /**
   * Takes a slot: at once (undefined) when one is free, else a promise that resolves once one is held
   * and rejects with `RunAbortedError` if `signal` fires first. Throws that error when `signal` already fired.
   */
  take(signal: AbortSignal): Promise<void> | undefined {
    if (signal.aborted) throw new RunAbortedError({ cause: signal.reason });
    if (this.#held < this.limit) {
      this.#held++;
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      const leave = (): void => {
        this.#waiting.splice(this.#waiting.indexOf(grant), 1);
        reject(new RunAbortedError({ cause: signal.reason }));
      };
      this.#waiting.push(grant);
      signal.addEventListener('abort', leave, { once: true });
    });
  }

  /** Hands the slot to the next in line, or frees it. */
  give(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#held--;
  }
}
