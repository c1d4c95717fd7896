import { RunAbortedError } from '../../runtime/loop/errors.js';
import { apiCallError } from './failures.js';

/** The longest wait before a retry accepted by default, as for the Anthropic invoker: a longer one faults the call. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** The AI SDK's own default: a first retry after 2 s, doubling after that. */
const INITIAL_DELAY_MS = 2_000;

/**
 * How long to wait before retry `attempt` (0 for the first) of a call that failed with `error`: what the
 * server asked for (`retry-after-ms`, else `retry-after` in seconds or as a date), else exponential
 * backoff from 2 s.
 */
export function retryDelayMs(error: unknown, attempt: number, now = Date.now()): number {
  const headers = apiCallError(error)?.responseHeaders as Record<string, string | undefined> | undefined;
  const ms = Number(headers?.['retry-after-ms']);
  if (headers?.['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers?.['retry-after'];
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return INITIAL_DELAY_MS * 2 ** attempt;
}

/** Waits `ms`, rejecting with `RunAbortedError` as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RunAbortedError({ cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RunAbortedError({ cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
