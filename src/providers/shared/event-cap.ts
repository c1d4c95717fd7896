import { StreamEventTooLargeError } from './errors.js';
import { streamLimits } from './stream-limits.js';

const LF = 0x0a;
const CR = 0x0d;

/**
 * A pass-through of an SSE byte stream that hands on only whole lines, and errors with
 * `StreamEventTooLargeError` as soon as one event (its lines, up to the blank line that ends it) passes
 * `maxEventBytes`, before any of the excess is handed on. The SDKs parse SSE themselves and buffer an
 * unfinished line until its end arrives, so a server sending one endless line would otherwise grow their
 * buffer without bound; here nothing past the cap is kept. Holding a partial line back until it ends
 * also spares the SDKs' line decoders, which copy and rescan their whole buffer on every chunk: a long
 * line reaches them in one piece, so parsing stays linear in its length. Line ends are LF, CR or CRLF,
 * as the SSE specification has them, also split across chunks. Counting the event rather than the line
 * also bounds an event of endless short `data:` lines, which the SDKs join into one string.
 */
export function capEvents(maxEventBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0;
  let lineBytes = 0;
  // A CR ends a line; an LF right after it is the same line end, not a blank line.
  let afterCR = false;
  // The unfinished line, held back until it ends.
  let held: Uint8Array[] = [];
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      let lastEnd = -1;
      let nextLF = chunk.indexOf(LF);
      let nextCR = chunk.indexOf(CR);
      while (start < chunk.length) {
        if (nextLF !== -1 && nextLF < start) nextLF = chunk.indexOf(LF, start);
        if (nextCR !== -1 && nextCR < start) nextCR = chunk.indexOf(CR, start);
        const end = nextLF === -1 ? nextCR : nextCR === -1 ? nextLF : Math.min(nextLF, nextCR);
        const run = (end === -1 ? chunk.length : end) - start;
        if (run > 0) {
          lineBytes += run;
          eventBytes += run;
          afterCR = false;
        }
        if (eventBytes > maxEventBytes) {
          held = [];
          return controller.error(new StreamEventTooLargeError(maxEventBytes));
        }
        if (end === -1) break;
        if (chunk[end] === LF && afterCR) afterCR = false;
        else {
          if (lineBytes === 0) eventBytes = 0;
          lineBytes = 0;
          afterCR = chunk[end] === CR;
        }
        lastEnd = end;
        start = end + 1;
      }
      if (lastEnd === -1) {
        held.push(chunk);
        return;
      }
      held.push(chunk.subarray(0, lastEnd + 1));
      controller.enqueue(held.length === 1 ? held[0] : concat(held));
      held = lastEnd + 1 < chunk.length ? [chunk.subarray(lastEnd + 1)] : [];
    },
    flush(controller) {
      if (held.length > 0) controller.enqueue(concat(held));
    },
  });
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.length;
  const whole = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

/**
 * `response` with its body read through `capEvents`, when it is an event stream; any other response
 * (a JSON body, an error) as it is, since only a stream is read line by line.
 */
export function capResponse(response: Response, maxEventBytes: number): Response {
  const type = response.headers.get('content-type') ?? '';
  if (maxEventBytes === Infinity || response.body === null || !type.toLowerCase().includes('text/event-stream')) return response;
  const capped = new Response(response.body.pipeThrough(capEvents(maxEventBytes)), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Read by the SDKs for their error messages and logs.
  Object.defineProperty(capped, 'url', { value: response.url });
  return capped;
}

/** `cappedFetch`'s options: the cap (default `DEFAULT_MAX_EVENT_BYTES`), and the `fetch` it wraps (default the global one). */
export type CappedFetchOptions = { maxEventBytes?: number; fetch?: typeof globalThis.fetch };

/**
 * A `fetch` whose event-stream responses are read through the event cap (see `StreamLimits`), for
 * clients indusagi does not build itself: an AI SDK provider takes it as its `fetch` option,
 * `createOpenAI({ fetch: cappedFetch() })`. Throws `StreamLimitsError` for a cap that cannot work.
 */
export function cappedFetch(options: CappedFetchOptions = {}): typeof globalThis.fetch {
  const { maxEventBytes } = streamLimits({ maxEventBytes: options.maxEventBytes });
  const base = options.fetch;
  return async (input, init) => capResponse(await (base ?? globalThis.fetch)(input, init), maxEventBytes);
}
