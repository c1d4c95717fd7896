import type { RunTails } from '../events/tails.js';
import type { StoredEvent } from '../types.js';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/** How one stream turns a batch of stored events into bytes; `end` is written after the terminal event. */
export type StreamFormat = {
  start?: string;
  events(batch: readonly StoredEvent[]): string;
  end?: string;
};

/** `id:` and `data:` per event: `Last-Event-ID` (or `?after=`) on a reconnect resumes right after the last one received. */
export const runEventsFormat: StreamFormat = {
  // A browser's EventSource waits this long before it reconnects by itself.
  start: 'retry: 1000\n\n',
  events: (batch) => batch.map((stored) => `id: ${stored.id}\ndata: ${JSON.stringify(stored.event)}\n\n`).join(''),
};

const encoder = new TextEncoder();

/**
 * A run's stream from the event after `afterId`: what is stored first, then what arrives, then the end
 * once the terminal event went out. Pulled as the client reads, so a slow client only falls behind in
 * its own position in the shared tail: the run, and every other client, never wait for it. Silent
 * stretches get a comment line every `keepAliveMs` (proxies close idle streams), which also asks the
 * tail to read again in case a notification was lost. Cancelling the body (the client left) lets go
 * of the tail.
 */
export function streamRun(
  tails: RunTails,
  runId: string,
  afterId: number,
  format: StreamFormat,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  const held = tails.hold(runId);
  const tail = held.tail;
  let position = afterId;
  let started = false;
  let finished = false;
  const leave = new AbortController();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          if (format.start !== undefined) return controller.enqueue(encoder.encode(format.start));
        }
        for (;;) {
          if (finished) return;
          const batch = tail.after(position);
          if (batch.length > 0) {
            position = batch[batch.length - 1].id;
            let text = format.events(batch);
            if (tail.complete && position >= tail.lastId) {
              finished = true;
              text += format.end ?? '';
            }
            controller.enqueue(encoder.encode(text));
            if (finished) {
              held.release();
              controller.close();
            }
            return;
          }
          if (tail.complete) {
            finished = true;
            held.release();
            if (format.end !== undefined) controller.enqueue(encoder.encode(format.end));
            controller.close();
            return;
          }
          const quiet = AbortSignal.any([leave.signal, AbortSignal.timeout(keepAliveMs)]);
          await tail.changed(position, quiet);
          if (leave.signal.aborted) return;
          if (tail.after(position).length === 0 && !tail.complete) {
            tails.notify(runId, Number.POSITIVE_INFINITY);
            return controller.enqueue(encoder.encode(': keep-alive\n\n'));
          }
        }
      },
      cancel() {
        finished = true;
        leave.abort();
        held.release();
      },
    },
    { highWaterMark: 0 },
  );
}
