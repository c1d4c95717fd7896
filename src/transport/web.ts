import { ClientDisconnectedError } from './errors.js';
import { PART_STREAM_HEADERS } from './frames.js';
import { PartPump } from './pump.js';
import type { PartSource, PartStreamOptions } from './pump.js';

export type PartsResponseOptions = PartStreamOptions & {
  /** Extra response headers (CORS and the like). */
  headers?: Record<string, string>;
  /**
   * The request's signal (`request.signal` in most web servers): when it fires, the client is taken
   * to be gone and the source is stopped, as when the response body is cancelled.
   */
  signal?: AbortSignal;
};

/**
 * A web `Response` whose body streams parts as NDJSON frames, pulled one at a time as the body is
 * read. Cancelling the body (the runtime does when the client disconnects) or firing `signal` fires
 * the source's signal and calls its iterator's `return()`.
 */
export function partsResponse(source: PartSource, options: PartsResponseOptions = {}): Response {
  const pump = new PartPump(source, options);
  const encoder = new TextEncoder();
  const { signal } = options;
  if (signal?.aborted) void pump.cancel(signal.reason ?? new ClientDisconnectedError());
  signal?.addEventListener('abort', () => void pump.cancel(signal.reason ?? new ClientDisconnectedError()), { once: true });

  let bodyCancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const line = await pump.next();
      if (bodyCancelled) return;
      if (line === null) controller.close();
      else controller.enqueue(encoder.encode(line));
    },
    cancel(reason) {
      bodyCancelled = true;
      return pump.cancel(reason ?? new ClientDisconnectedError());
    },
  });
  return new Response(body, { status: 200, headers: { ...PART_STREAM_HEADERS, ...options.headers } });
}
