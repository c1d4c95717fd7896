// A loopback stand-in for OpenAI's Responses API, speaking its streaming wire format, so tests drive
// the real `openai` client (and the real `@ai-sdk/openai` provider) end to end and fake nothing but the
// network peer.
//
//   const server = await startOpenAIServer();
//   server.enqueue(response.calls([{ name: 'notes_list', arguments: {} }]), response.text('You have 2 notes.'));
//   const client = server.client();                  // a real `OpenAI` pointed at the server
//   ...run the code under test...
//   server.requests[1].body.input                    // exactly what the SDK sent
//   await server.close();
//
// Each POST /v1/responses takes the next scripted reply and answers with SSE frames as the API sends
// them, each with an `event:` line naming its type and a `sequence_number`: response.created,
// response.in_progress, then per output item response.output_item.added, its parts and deltas
// (output_text, refusal, reasoning_summary_text, function_call_arguments) and response.output_item.done,
// then response.completed (or response.incomplete with incomplete_details, or an `error` event
// followed by response.failed). Usage arrives only with the terminal response, as in the API. Scripts can
// also answer with an HTTP error in the API's error body, cut the stream with an `error` event, drop the
// connection, send a frame that is not JSON, stall the stream (silent, or sending only comments or
// `keepalive` events) or flood it with one endless line.
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { encodeFrame } from '../../src/testing/wire.js';
import { split, startLoopbackServer, writeFrames, type LoopbackServer, type RecordedRequest } from '../../src/testing/loopback.js';

export type { RecordedRequest } from '../../src/testing/loopback.js';

/** One output item of a scripted response. */
export type ScriptItem =
  | { type: 'text'; text: string; chunks?: string[] }
  | { type: 'refusal'; text: string }
  | { type: 'reasoning'; summary: string }
  | {
      type: 'function_call';
      name: string;
      arguments?: unknown;
      /** Sent verbatim instead of `JSON.stringify(arguments)` (for malformed JSON). */
      rawArguments?: string;
      /** Default: a unique `call_…` id. */
      callId?: string;
    };

export type ScriptUsage = {
  input_tokens?: number;
  output_tokens?: number;
  cached_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
};

/**
 * Cuts a streamed response short before frame `afterFrames` (response.created is frame 0), or stalls or
 * floods it there (see `StreamCut`; the API's keep-alive is a `keepalive` event).
 */
export type Interruption =
  | { afterFrames: number; with: 'error'; code?: string; message?: string }
  | { afterFrames: number; with: 'drop' }
  | { afterFrames: number; with: 'garbage' }
  | { afterFrames: number; with: 'silence' | 'comments' | 'pings'; everyMs?: number }
  | { afterFrames: number; with: 'flood'; bytes: number };

export type ResponseScript = {
  type: 'response';
  items: ScriptItem[];
  usage?: ScriptUsage;
  /** Ends with response.incomplete for this reason instead of response.completed. */
  incomplete?: 'max_output_tokens' | 'content_filter';
  /** Ends with an `error` event and response.failed carrying this error. */
  fail?: { code: string; message: string };
  /** Pause before every frame after the first, in milliseconds. Default 0. */
  frameDelayMs?: number;
  interrupt?: Interruption;
};

/** A non-200 answer with the API's JSON error body. */
export type HttpErrorScript = {
  type: 'http_error';
  status: number;
  /** The error's `code`, e.g. `context_length_exceeded`, `rate_limit_exceeded`. */
  code?: string | null;
  /** The error's `type`. Default derived from the status. */
  errorType?: string;
  message?: string;
  /** Extra response headers. `retry-after-ms` steers the SDK's retry timing. */
  headers?: Record<string, string>;
};

export type Script = ResponseScript | HttpErrorScript;

export type OpenAITestServer = LoopbackServer<Script> & {
  /** `http://127.0.0.1:<port>/v1`, for the SDK's `baseURL`. */
  readonly baseURL: string;
  /** A real `OpenAI` client for this server; `maxRetries` defaults to 0 so failures surface at once. */
  client(options?: { maxRetries?: number }): OpenAI;
};

let nextId = 0;
const uniqueId = (prefix: string) => `${prefix}_${process.pid}${String(++nextId).padStart(6, '0')}`;

/** Builders for the common scripts. */
export const response = {
  /** A plain text answer. */
  text(text: string, options: Omit<ResponseScript, 'type' | 'items'> = {}): ResponseScript {
    return { type: 'response', items: [{ type: 'text', text }], ...options };
  },
  /** A response that calls functions (sanitized names, as the model sees them), optionally after some text. */
  calls(
    calls: Array<{ name: string; arguments?: unknown; callId?: string; rawArguments?: string }>,
    options: Omit<ResponseScript, 'type' | 'items'> & { text?: string } = {},
  ): ResponseScript {
    const { text, ...rest } = options;
    const items: ScriptItem[] = text === undefined ? [] : [{ type: 'text', text }];
    for (const call of calls) items.push({ type: 'function_call', ...call });
    return { type: 'response', items, ...rest };
  },
  /** Any mix of items. */
  items(items: ScriptItem[], options: Omit<ResponseScript, 'type' | 'items'> = {}): ResponseScript {
    return { type: 'response', items, ...options };
  },
  /** An HTTP error; the SDK retries 408/409/429/5xx on its own (`retry-after-ms` steers how long it waits). */
  httpError(status: number, options: Omit<HttpErrorScript, 'type' | 'status'> = {}): HttpErrorScript {
    return { type: 'http_error', status, ...options };
  },
  /** The API's 400 for a prompt over the model's window. */
  contextLengthExceeded(): HttpErrorScript {
    return {
      type: 'http_error',
      status: 400,
      code: 'context_length_exceeded',
      message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
    };
  },
};

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'requests',
  500: 'server_error',
  503: 'server_error',
};

export async function startOpenAIServer(): Promise<OpenAITestServer> {
  const loopback = await startLoopbackServer<Script>({
    name: 'openai-server',
    routes: (method, path) => method === 'POST' && path.startsWith('/v1/responses'),
    error: (res, status, message) => sendHttpError(res, { type: 'http_error', status, message, headers: { 'x-should-retry': 'false' } }),
    answer: async (res, record, script) =>
      script.type === 'http_error' ? sendHttpError(res, script) : streamResponse(res, record, script),
  });
  const baseURL = `${loopback.origin}/v1`;
  return {
    ...loopback,
    baseURL,
    client: (options = {}) => new OpenAI({ baseURL, apiKey: 'test-key', maxRetries: options.maxRetries ?? 0, logLevel: 'off' }),
  };
}

function sendHttpError(res: ServerResponse, script: HttpErrorScript): void {
  const type = script.errorType ?? ERROR_TYPES[script.status] ?? 'server_error';
  res.writeHead(script.status, { 'content-type': 'application/json', 'x-request-id': uniqueId('req'), ...script.headers });
  res.end(
    JSON.stringify({ error: { message: script.message ?? `scripted ${script.status}`, type, param: null, code: script.code ?? null } }),
  );
}

type Frame = { type: string } & Record<string, unknown>;

/** The response envelope as the API reports it in response.created and the terminal events. */
function envelope(id: string, body: any, status: string, output: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body?.instructions ?? null,
    max_output_tokens: body?.max_output_tokens ?? null,
    max_tool_calls: null,
    model: String(body?.model ?? 'gpt-test'),
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt_cache_key: body?.prompt_cache_key ?? null,
    reasoning: { effort: body?.reasoning?.effort ?? null, summary: null },
    safety_identifier: null,
    service_tier: 'auto',
    store: body?.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: body?.tools ?? [],
    top_logprobs: 0,
    top_p: 1,
    truncation: 'disabled',
    usage: null,
    user: null,
    metadata: {},
    ...extra,
  };
}

/** The SSE events of one response, in wire order, without sequence numbers. */
function eventsOf(script: ResponseScript, body: any): Frame[] {
  const id = uniqueId('resp');
  const events: Frame[] = [
    { type: 'response.created', response: envelope(id, body, 'in_progress', []) },
    { type: 'response.in_progress', response: envelope(id, body, 'in_progress', []) },
  ];
  const output: unknown[] = [];
  script.items.forEach((item, output_index) => {
    const added = (value: Record<string, unknown>) => events.push({ type: 'response.output_item.added', output_index, item: value });
    const done = (value: Record<string, unknown>) => {
      events.push({ type: 'response.output_item.done', output_index, item: value });
      output.push(value);
    };
    if (item.type === 'text' || item.type === 'refusal') {
      const item_id = uniqueId('msg');
      const refusal = item.type === 'refusal';
      const part = refusal
        ? { type: 'refusal', refusal: item.text }
        : { type: 'output_text', annotations: [], logprobs: [], text: item.text };
      const at = { item_id, output_index, content_index: 0 };
      added({ id: item_id, type: 'message', status: 'in_progress', content: [], role: 'assistant' });
      events.push({ type: 'response.content_part.added', ...at, part: refusal ? { type: 'refusal', refusal: '' } : { ...part, text: '' } });
      const pieces = item.type === 'text' ? (item.chunks ?? split(item.text)) : split(item.text);
      for (const delta of pieces) {
        events.push(
          refusal
            ? { type: 'response.refusal.delta', ...at, delta }
            : { type: 'response.output_text.delta', ...at, delta, logprobs: [], obfuscation: 'x' },
        );
      }
      events.push(
        refusal
          ? { type: 'response.refusal.done', ...at, refusal: item.text }
          : { type: 'response.output_text.done', ...at, text: item.text, logprobs: [] },
      );
      events.push({ type: 'response.content_part.done', ...at, part });
      done({ id: item_id, type: 'message', status: 'completed', content: [part], role: 'assistant' });
    } else if (item.type === 'reasoning') {
      const item_id = uniqueId('rs');
      const at = { item_id, output_index, summary_index: 0 };
      added({ id: item_id, type: 'reasoning', summary: [] });
      events.push({ type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } });
      for (const delta of split(item.summary))
        events.push({ type: 'response.reasoning_summary_text.delta', ...at, delta, obfuscation: 'x' });
      events.push({ type: 'response.reasoning_summary_text.done', ...at, text: item.summary });
      events.push({ type: 'response.reasoning_summary_part.done', ...at, part: { type: 'summary_text', text: item.summary } });
      done({ id: item_id, type: 'reasoning', summary: [{ type: 'summary_text', text: item.summary }] });
    } else {
      const item_id = uniqueId('fc');
      const call = { id: item_id, type: 'function_call', call_id: item.callId ?? uniqueId('call'), name: item.name };
      const args = item.rawArguments ?? JSON.stringify(item.arguments ?? {});
      added({ ...call, status: 'in_progress', arguments: '' });
      for (const delta of split(args))
        events.push({ type: 'response.function_call_arguments.delta', item_id, output_index, delta, obfuscation: 'x' });
      events.push({ type: 'response.function_call_arguments.done', item_id, output_index, arguments: args });
      done({ ...call, status: 'completed', arguments: args });
    }
  });
  const usage = script.usage ?? {};
  const input = usage.input_tokens ?? 10;
  const outputTokens = usage.output_tokens ?? 5;
  const finalUsage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, cache_write_tokens: usage.cache_write_tokens ?? 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: input + outputTokens,
  };
  if (script.fail) {
    events.push({ type: 'error', error: { type: script.fail.code, code: script.fail.code, message: script.fail.message, param: null } });
    events.push({ type: 'response.failed', response: envelope(id, body, 'failed', output, { error: script.fail }) });
  } else if (script.incomplete) {
    events.push({
      type: 'response.incomplete',
      response: envelope(id, body, 'incomplete', output, { incomplete_details: { reason: script.incomplete }, usage: finalUsage }),
    });
  } else {
    events.push({ type: 'response.completed', response: envelope(id, body, 'completed', output, { usage: finalUsage }) });
  }
  return events;
}

async function streamResponse(res: ServerResponse, record: RecordedRequest, script: ResponseScript): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': uniqueId('req') });
  const frames = eventsOf(script, record.body).map((event, sequence_number) =>
    encodeFrame({ event: event.type, data: { ...event, sequence_number } }),
  );
  const interrupt = script.interrupt;
  const error = {
    type: 'server_error',
    code: (interrupt?.with === 'error' && interrupt.code) || 'server_error',
    message: (interrupt?.with === 'error' && interrupt.message) || 'The server had an error while processing your request.',
    param: null,
  };
  await writeFrames(res, record, frames, {
    delayMs: script.frameDelayMs,
    cut: interrupt,
    broken: {
      error: encodeFrame({ event: 'error', data: { type: 'error', sequence_number: interrupt?.afterFrames ?? 0, error } }),
      garbage: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":\n\n',
      ping: (sequence_number) => encodeFrame({ event: 'keepalive', data: { type: 'keepalive', sequence_number } }),
    },
  });
}
