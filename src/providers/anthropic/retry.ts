import { RunAbortedError } from '../../runtime/loop/errors.js';

/** The longest wait before a retry the invoker accepts by default: a longer one faults the call. */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

/** How the Anthropic invoker retries a failed call: at most `maxRetries` times, never waiting longer than `maxRetryDelayMs`. */
export type RetryPolicy = { maxRetries: number; maxRetryDelayMs: number };

type ErrorShape = {
  status?: unknown;
  headers?: { get?(name: string): string | null | undefined } | Record<string, string | undefined>;
  error?: { error?: { type?: unknown; message?: unknown } };
  name?: unknown;
};

/**
 * Whether a call that failed before anything streamed is worth trying again, and why: the same cases
 * the SDK retries (a dropped connection, a timeout, 408, 409, 429 and 5xx, or the API saying so with
 * `x-should-retry`). Null when it is not.
 */
export function retryReason(error: unknown): { status?: number; reason: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const shape = error as ErrorShape;
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  if (status === undefined) {
    // The SDK's connection errors carry no status; anything else without one is not an API answer.
    const name = typeof shape.name === 'string' ? shape.name : '';
    return name === 'APIConnectionError' || name === 'APIConnectionTimeoutError'
      ? { reason: name === 'APIConnectionTimeoutError' ? 'timed out' : 'connection error' }
      : null;
  }
  const should = header(shape, 'x-should-retry');
  if (should === 'false') return null;
  if (should !== 'true' && !(status === 408 || status === 409 || status === 429 || status >= 500)) return null;
  const detail = shape.error?.error;
  const reason = typeof detail?.type === 'string' ? detail.type.replace(/_error$/, '').replace(/_/g, ' ') : `HTTP ${status}`;
  return { status, reason };
}

/**
 * How long to wait before retry number `retry` (1 for the first): what the API asked for in
 * `retry-after-ms` or `retry-after` (seconds or a date), else exponential backoff from 0.5 s up to 8 s
 * with up to 25% jitter, as the SDK does.
 */
export function retryDelayMs(error: unknown, retry: number): number {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ErrorShape;
  const asked = askedDelayMs(header(shape, 'retry-after-ms'), header(shape, 'retry-after'));
  if (asked !== undefined) return asked;
  return Math.min(500 * 2 ** (retry - 1), 8_000) * (1 - Math.random() * 0.25);
}

function askedDelayMs(millis: string | undefined, seconds: string | undefined): number | undefined {
  const fromMillis = millis === undefined ? NaN : Number.parseFloat(millis);
  if (fromMillis >= 0) return fromMillis;
  if (seconds === undefined) return undefined;
  const fromSeconds = Number.parseFloat(seconds);
  if (fromSeconds >= 0) return fromSeconds * 1000;
  const date = Date.parse(seconds);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function header(shape: ErrorShape, name: string): string | undefined {
  const headers = shape.headers;
  if (headers === undefined || headers === null) return undefined;
  const value = typeof headers.get === 'function' ? headers.get(name) : (headers as Record<string, string | undefined>)[name];
  return typeof value === 'string' ? value : undefined;
}

/** Waits `ms`, or rejects with `RunAbortedError` as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RunAbortedError({ cause: signal.reason }));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RunAbortedError({ cause: signal!.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
