import type { AgentPart } from '../parts/types.js';
import { assertAgentPart } from '../parts/validate.js';
import { PartStreamHttpError, PartStreamProtocolError, PartStreamTruncatedError, RemoteStreamError } from './errors.js';
import type { PartFrame } from './frames.js';

export type ReadPartsOptions = {
  /** Stops reading: the reader cancels the body and throws the signal's reason. */
  signal?: AbortSignal;
  /** Longest line accepted, in characters; a longer one is a protocol error. Default 16 MiB. */
  maxLineLength?: number;
};

const DEFAULT_MAX_LINE = 16 * 1024 * 1024;
const SNIPPET = 200;

/**
 * Reads a part-stream response (from `sendParts` or `partsResponse`) into parts. Throws
 * `RemoteStreamError` for the server's error frame, `PartStreamTruncatedError` if the stream ends
 * without its end frame, `PartStreamHttpError` for a non-2xx status and `PartStreamProtocolError`
 * for anything that is not the wire format.
 */
export async function* readParts(response: Response, options: ReadPartsOptions = {}): AsyncGenerator<AgentPart, void, undefined> {
  const { signal, maxLineLength = DEFAULT_MAX_LINE } = options;
  if (!response.ok) throw new PartStreamHttpError(response.status, await bodySnippet(response));
  const contentType = response.headers.get('content-type') ?? '';
  if (!/^application\/x-ndjson\s*(;|$)/i.test(contentType)) {
    await response.body?.cancel();
    throw new PartStreamProtocolError(`Expected an application/x-ndjson part stream; the response is "${contentType || 'untyped'}".`);
  }
  if (response.body === null) throw new PartStreamProtocolError('The part stream response has no body.');

  const reader = response.body.getReader();
  // Fatal: a byte sequence that is not UTF-8 is a broken stream, not text to guess at.
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // cancel() only rejects when the body has already failed, and read() then rejects with that same
  // error, which the loop below turns into a typed one; so the rejection here carries no news.
  const onAbort = () => reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  let buffer = '';
  let lineNumber = 0;
  let readFailed = false;
  try {
    signal?.throwIfAborted();
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        readFailed = true;
        signal?.throwIfAborted();
        throw new PartStreamTruncatedError('The connection failed before the part stream ended.', { cause: error });
      }
      signal?.throwIfAborted();
      if (chunk.done) break;
      buffer += decode(decoder, chunk.value);
      // Lines are cut by index and the rest kept once per chunk: re-slicing the buffer per line
      // would copy it over and over when a chunk holds thousands of small frames.
      let start = 0;
      for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n', start)) {
        const line = buffer.slice(start, newline);
        start = newline + 1;
        const frame = parseFrame(line, ++lineNumber, maxLineLength);
        if (frame === null) continue;
        if (frame.frame === 'part') {
          // Parts already buffered when the signal fired are not handed out either.
          signal?.throwIfAborted();
          yield frame.part;
        } else if (frame.frame === 'error') throw new RemoteStreamError(frame.error.kind, frame.error.message);
        else return;
      }
      buffer = buffer.slice(start);
      if (buffer.length > maxLineLength)
        throw new PartStreamProtocolError(`Line ${lineNumber + 1} is longer than ${maxLineLength} characters.`);
    }
    throw new PartStreamTruncatedError();
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Leaving early (end frame, error, or the consumer breaking out) must release the connection.
    if (!readFailed) await reader.cancel();
    reader.releaseLock();
  }
}

export type FetchPartsInit = RequestInit & {
  /** Sent as the JSON request body (and the method defaults to POST). */
  json?: unknown;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
  maxLineLength?: number;
};

/**
 * Fetches a part-stream endpoint and reads it, for `useAssistant`'s `stream`:
 * `stream: (prompt, history, { signal }) => fetchParts('/api/chat', { json: { prompt, history }, signal })`.
 * Aborting `signal` closes the connection, which the server sees as a disconnect.
 */
export async function* fetchParts(input: string | URL | Request, init: FetchPartsInit = {}): AsyncGenerator<AgentPart, void, undefined> {
  const { json, fetch: fetchImpl = globalThis.fetch, maxLineLength, ...request } = init;
  const headers = new Headers(request.headers);
  if (!headers.has('accept')) headers.set('accept', 'application/x-ndjson');
  if (json !== undefined) {
    headers.set('content-type', 'application/json');
    request.body = JSON.stringify(json);
    request.method ??= 'POST';
  }
  const response = await fetchImpl(input, { ...request, headers });
  yield* readParts(response, { signal: request.signal ?? undefined, maxLineLength });
}

function decode(decoder: TextDecoder, bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes, { stream: true });
  } catch (error) {
    throw new PartStreamProtocolError('The part stream is not valid UTF-8.', { cause: error });
  }
}

function parseFrame(line: string, lineNumber: number, maxLineLength: number): PartFrame | null {
  if (line.length > maxLineLength) throw new PartStreamProtocolError(`Line ${lineNumber} is longer than ${maxLineLength} characters.`);
  const text = line.trim();
  // Blank lines carry nothing; a proxy or server may send them to keep an idle connection open.
  if (text === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PartStreamProtocolError(`Line ${lineNumber} is not JSON: ${snippet(text)}`, { cause: error });
  }
  const frame = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  switch (frame.frame) {
    case 'part':
      try {
        assertAgentPart(frame.part);
      } catch (error) {
        throw new PartStreamProtocolError(`Line ${lineNumber} carries an invalid part: ${(error as Error).message}`, { cause: error });
      }
      return { frame: 'part', part: frame.part };
    case 'error': {
      const error = frame.error as Record<string, unknown> | null;
      if (typeof error?.kind !== 'string' || typeof error.message !== 'string') {
        throw new PartStreamProtocolError(`Line ${lineNumber} is an error frame without a string kind and message: ${snippet(text)}`);
      }
      return { frame: 'error', error: { kind: error.kind, message: error.message } };
    }
    case 'end':
      return { frame: 'end' };
    default:
      throw new PartStreamProtocolError(`Line ${lineNumber} is not a part-stream frame: ${snippet(text)}`);
  }
}

function snippet(text: string): string {
  return text.length > SNIPPET ? `${text.slice(0, SNIPPET)}…` : text;
}

async function bodySnippet(response: Response): Promise<string> {
  try {
    return snippet((await response.text()).trim());
  } catch (error) {
    return `(the body could not be read: ${(error as Error).message})`;
  }
}
