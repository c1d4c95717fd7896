import { StreamLimitsError } from './errors.js';

/**
 * How much of a misbehaving stream an invoker puts up with: every invoker factory takes these
 * (`createAnthropicInvoker`, `createOpenAIInvoker`, `fromAiSdk`; for an AI SDK model the event cap is
 * set on its provider's `fetch`, see `cappedFetch`).
 */
export type StreamLimits = {
  /**
   * The longest the stream may go without a content event, counted from the request and from each
   * content event; keep-alive comments and pings do not count. Past it the request is closed with a
   * `StreamIdleError`, which the invoker retries while no text has streamed. Default 60 s
   * (`DEFAULT_IDLE_TIMEOUT_MS`); `Infinity` turns it off. A reasoning model that thinks for minutes
   * without streaming a summary sends only keep-alives meanwhile: give it a longer timeout.
   */
  idleTimeoutMs?: number;
  /**
   * The largest event (an SSE line, or the lines up to the blank line that ends an event) the stream
   * may send, in bytes: past it the stream is cut with a `StreamEventTooLargeError` before the rest is
   * read, so memory stays bounded whatever the server sends. Default 8 MiB (`DEFAULT_MAX_EVENT_BYTES`),
   * far above any event a model API sends; `Infinity` turns it off.
   */
  maxEventBytes?: number;
};

/** At most 60 s: a stalled server is found within a minute, and a slow first token still fits. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/**
 * 8 MiB: the largest event a model API sends, a `response.completed` carrying a whole 128K-token reply,
 * stays under 2 MiB; a larger cap only lets a hostile server hold more memory.
 */
export const DEFAULT_MAX_EVENT_BYTES = 8 * 1024 * 1024;

/** The longest delay `setTimeout` keeps (a larger one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The limits with their defaults. Throws `StreamLimitsError` for a value that cannot work: a timeout
 * that is not a positive number of milliseconds up to ~24.8 days (or `Infinity`), an event cap that is
 * not a positive whole number of bytes (or `Infinity`).
 */
export function streamLimits(options: StreamLimits = {}): Required<StreamLimits> {
  const { idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS, maxEventBytes = DEFAULT_MAX_EVENT_BYTES } = options;
  if (!(idleTimeoutMs === Infinity || (typeof idleTimeoutMs === 'number' && idleTimeoutMs > 0 && idleTimeoutMs <= MAX_TIMER_MS)))
    throw new StreamLimitsError(
      `\`idleTimeoutMs\` must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, or Infinity, got ${String(idleTimeoutMs)}`,
    );
  if (!(maxEventBytes === Infinity || (Number.isSafeInteger(maxEventBytes) && maxEventBytes > 0)))
    throw new StreamLimitsError(`\`maxEventBytes\` must be a positive whole number of bytes, or Infinity, got ${String(maxEventBytes)}`);
  return { idleTimeoutMs, maxEventBytes };
}
