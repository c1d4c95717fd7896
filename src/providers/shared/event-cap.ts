import { StreamEventTooLargeError } from './errors.js';
import { streamLimits } from './stream-limits.js';

const LF = 0x0a;
const CR = 0x0d;

/**
 * A pass-through of an SSE byte stream that errors with `StreamEventTooLargeError` as soon as one event
 * (its lines, up to the blank line that ends it) passes `maxEventBytes`, before the chunk that passed it
 * is handed on. The SDKs parse SSE themselves and buffer an unfinished line or event until its end
 * arrives, so a server sending one endless line would otherwise grow their buffer without bound; here
 * they never hold more than the cap. Line ends are LF, CR or CRLF, as the SSE specification has them,
 * also split across chunks. Counting the event rather than the line also bounds an event of endless
 * short `data:` lines, which the SDKs join into one string. Chunks pass as they came, uncopied.
 */
export function capEvents(maxEventBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0;
  let lineBytes = 0;
  // A CR ends a line; an LF right after it is the same line end, not a blank line.
  let afterCR = false;
  return new TransformStream({
    transform(chunk, controller) {
      // Line ends found with the native `indexOf`: over short and long lines alike it beats a loop over the bytes.
      let start = 0;
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
        if (eventBytes > maxEventBytes) return controller.error(new StreamEventTooLargeError(maxEventBytes));
        if (end === -1) break;
        if (chunk[end] === LF && afterCR) afterCR = false;
        else {
          if (lineBytes === 0) eventBytes = 0;
          lineBytes = 0;
          afterCR = chunk[end] === CR;
        }
        start = end + 1;
      }
      controller.enqueue(chunk);
    },
  });
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
