import type { ServerResponse } from 'node:http';
import { IndusagiError } from '../errors/index.js';
import type { Run } from '../runtime/agent/run.js';
import { publicErrorInfo } from '../transport/frames.js';
import { drained } from '../transport/node.js';
import { ChunkTranslator, type UIMessageChunk } from './chunks.js';
import type { ChatRequest } from './request.js';

/** What the helpers need of an `Agent`. */
export type ChatAgent = {
  submit(prompt: string, opts?: { signal?: AbortSignal }): Run;
  continue(opts?: { signal?: AbortSignal }): Run;
  approve(approvalId: string): Run;
  reject(approvalId: string, reason?: string): Run;
  abort(): void;
};

/**
 * What a UI message stream sends: given the stream's signal (it fires when the client leaves), the
 * chunks to send, e.g. `(signal) => uiMessageChunks(agent, request, signal)` wrapped in what a server
 * does around a run. The stream drains it to its end even after the client left, so a run it wraps
 * settles (and a `finally` in it runs) before the next one.
 */
export type UIMessageChunkSource = (signal: AbortSignal) => AsyncIterable<UIMessageChunk>;

export type UIMessageStreamOptions = {
  /** The new assistant message's id (a prompt's reply; decisions continue the last message). Default: a random UUID. */
  messageId?: string;
  /** The `errorText` the page gets for a failed run. Default: an `IndusagiError`'s message, anything else "Internal error". */
  describeError?: (error: unknown) => string;
  /** Every failure of a run, for logging. Default: `console.error` for errors that are not `IndusagiError`s. */
  onError?: (error: unknown) => void;
};

export type UIMessageResponseOptions = UIMessageStreamOptions & {
  /** The request's signal (`request.signal`): when it fires, the client is gone and the run is stopped. */
  signal?: AbortSignal;
  /** Extra response headers. */
  headers?: Record<string, string>;
};

/** The headers of a UI message stream response; `x-vercel-ai-ui-message-stream: v1` tells `useChat` the protocol. */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

const logError = (error: unknown) => {
  if (!IndusagiError.isInstance(error)) console.error('[indusagi] a UI message stream run failed:', error);
};

/**
 * The UI message stream chunks of the run that answers `request` on `agent`: a prompt is submitted
 * (with `signal`), `continue` picks the session up where it stands (`agent.continue`, after the server
 * moved it back with `branchFrom` to answer a prompt again), decisions are applied in order
 * (`approve` / `reject`; `signal` aborts the agent once they run). A prompt and `continue` start a new
 * message; decisions continue the page's last one. A failed run ends with an `error` chunk (an aborted
 * one with `abort`) after `options.onError` saw its error (a `RunFault` carrying the run's snapshot);
 * nothing is thrown. Only this request's runs are read: other runs of the agent never leak into its stream.
 */
export async function* uiMessageChunks(
  agent: ChatAgent,
  request: ChatRequest,
  signal: AbortSignal,
  options: UIMessageStreamOptions = {},
): AsyncGenerator<UIMessageChunk, void, undefined> {
  const decisions = request.kind === 'decisions' ? request.decisions : [];
  const translator = new ChunkTranslator(
    options.messageId ?? globalThis.crypto.randomUUID(),
    decisions.map((d) => d.toolCallId),
    // A rejected call of a sub-agent is not a denial of the call it sits under, which goes on.
    decisions.filter((d) => !d.approved && d.approvalId === d.toolCallId).map((d) => d.toolCallId),
  );
  let ours = false;
  // One run for a prompt or a continue; one per decision, each started once the one before it has ended.
  const starts: Array<() => Run> =
    request.kind === 'prompt'
      ? [() => agent.submit(request.text, { signal })]
      : request.kind === 'continue'
        ? [() => agent.continue({ signal })]
        : request.decisions.map((d) => () => {
            ours = true;
            return d.approved ? agent.approve(d.approvalId) : agent.reject(d.approvalId, d.reason);
          });
  // approve and reject take no signal: stop the agent, but only once the run is this stream's.
  const stopDecisions = () => ours && agent.abort();
  signal.addEventListener('abort', stopDecisions, { once: true });
  yield* translator.begin(request.kind !== 'decisions');
  try {
    for (const start of starts) for await (const event of start()) yield* translator.chunksOf(event);
  } catch (error) {
    (options.onError ?? logError)(error);
    const aborted = IndusagiError.isInstance(error) && error.kind === 'aborted';
    yield* translator.end({ aborted, message: describe(error, options) });
    return;
  } finally {
    signal.removeEventListener('abort', stopDecisions);
  }
  yield* translator.end();
}

function describe(error: unknown, options: UIMessageStreamOptions): string {
  if (options.describeError === undefined) return publicErrorInfo(error).message;
  try {
    return options.describeError(error);
  } catch (failure) {
    (options.onError ?? logError)(failure);
    return publicErrorInfo(error).message;
  }
}

/** One SSE event of the protocol: `data: <json>` and a blank line. */
function sse(data: string): Uint8Array {
  return new TextEncoder().encode(`data: ${data}\n\n`);
}

/**
 * A web `Response` streaming the run that answers `request` as a UI message stream (SSE, ending with
 * `data: [DONE]`), for `useChat` from `@ai-sdk/react`. Return it from a Next.js route handler, Hono,
 * Bun or Deno. The body is pulled as it is read; cancelling it (the client left, or `useChat`'s
 * `stop()`) or firing `options.signal` aborts the run.
 */
export function uiMessageStreamResponse(agent: ChatAgent, request: ChatRequest, options: UIMessageResponseOptions = {}): Response {
  return uiMessageChunkResponse((signal) => uiMessageChunks(agent, request, signal, options), options);
}

/**
 * `uiMessageStreamResponse` for any chunk source: a server that wraps the run (holds a lock while it
 * runs, records what it said) streams `(signal) => wrapped(uiMessageChunks(agent, request, signal))`.
 * `[DONE]` follows the source's end, so what the source does last (a lock handed back in its
 * `finally`) is done before the client hears the stream end.
 */
export function uiMessageChunkResponse(
  source: UIMessageChunkSource,
  options: Pick<UIMessageResponseOptions, 'signal' | 'headers'> = {},
): Response {
  const controller = new AbortController();
  const leave = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) leave();
  options.signal?.addEventListener('abort', leave, { once: true });
  const chunks = source(controller.signal)[Symbol.asyncIterator]();
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      if (done) return;
      const next = await chunks.next();
      if (!next.done) return stream.enqueue(sse(JSON.stringify(next.value)));
      done = true;
      options.signal?.removeEventListener('abort', leave);
      stream.enqueue(sse('[DONE]'));
      stream.close();
    },
    async cancel() {
      done = true;
      options.signal?.removeEventListener('abort', leave);
      controller.abort();
      // Drain what the run still reports while it stops, so it settles before the next run on the agent.
      for (let next = await chunks.next(); !next.done; next = await chunks.next());
    },
  });
  return new Response(body, { status: 200, headers: { ...UI_MESSAGE_STREAM_HEADERS, ...options.headers } });
}

/**
 * `uiMessageStreamResponse` into a `node:http` response: the same stream, written with backpressure;
 * the client hanging up aborts the run. Resolves once the response is finished or abandoned.
 */
export function sendUIMessageStream(
  res: ServerResponse,
  agent: ChatAgent,
  request: ChatRequest,
  options: UIMessageStreamOptions & { headers?: Record<string, string> } = {},
): Promise<void> {
  return sendUIMessageChunks(res, (signal) => uiMessageChunks(agent, request, signal, options), options);
}

/** `uiMessageChunkResponse` into a `node:http` response, as `sendUIMessageStream` writes it. */
export async function sendUIMessageChunks(
  res: ServerResponse,
  source: UIMessageChunkSource,
  options: { headers?: Record<string, string> } = {},
): Promise<void> {
  const response = uiMessageChunkResponse(source, options);
  const reader = response.body!.getReader();
  const onClose = () => {
    if (!res.writableFinished) void reader.cancel();
  };
  res.once('close', onClose);
  res.writeHead(200, Object.fromEntries(response.headers));
  res.flushHeaders();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (res.destroyed) break;
      if (!res.write(next.value)) await drained(res);
    }
    if (!res.destroyed) res.end();
  } finally {
    res.off('close', onClose);
  }
}
