import { RunAbortedError } from './errors.js';

/**
 * Settles with `promise`, or rejects with `RunAbortedError` as soon as `signal` fires, whichever comes
 * first. The loop never waits on work that ignores its signal; that work's late outcome is dropped.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(ignoreLateOutcome);
    return Promise.reject(new RunAbortedError({ cause: signal.reason }));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunAbortedError({ cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

// The run has already ended as aborted; whatever the abandoned work does later has nowhere to go.
function ignoreLateOutcome(): void {}
