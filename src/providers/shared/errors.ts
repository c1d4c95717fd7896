import { IndusagiError } from '../../errors/index.js';
import { ModelCallError } from '../../runtime/loop/errors.js';

/**
 * The model's stream sent no content for `idleTimeoutMs` (keep-alive comments and pings are not
 * content): the server stalled. The invoker closed the request; it retries the call itself while no
 * text of the reply has reached `onText`, so a caller sees this error only once the retries are spent
 * or after text has streamed (a retry would repeat that text).
 */
export class StreamIdleError extends ModelCallError {
  static override readonly errorName: string = 'StreamIdleError';
  constructor(readonly idleTimeoutMs: number) {
    super(`The model's stream sent no content for ${formatMs(idleTimeoutMs)} (idleTimeoutMs); the request was closed.`);
  }
}

/**
 * One event of the model's stream (an SSE line, or the lines up to the blank line ending an event)
 * grew past `maxEventBytes`. The stream was cut there, before the rest was read: a server that sends
 * one endless line must not fill memory. Not retried, since the same server would send it again.
 */
export class StreamEventTooLargeError extends ModelCallError {
  static override readonly errorName: string = 'StreamEventTooLargeError';
  constructor(readonly maxEventBytes: number) {
    super(`An event of the model's stream is over ${maxEventBytes} bytes (maxEventBytes); the stream was cut before reading the rest.`);
  }
}

/** An invoker's stream limits (`idleTimeoutMs`, `maxEventBytes`) that cannot work, refused when it is made. */
export class StreamLimitsError extends IndusagiError {
  static override readonly errorName: string = 'StreamLimitsError';
  constructor(detail: string) {
    super('invalid_request', `Invalid stream limits: ${detail}.`);
  }
}

/** The first error in `error`'s cause chain (itself included) that `is` accepts: SDKs wrap what a stream threw. */
export function causeOf<T>(error: unknown, is: (candidate: unknown) => candidate is T): T | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (is(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export { UnsupportedContentError } from '../../runtime/models/errors.js';
