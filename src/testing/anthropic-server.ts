// A loopback stand-in for the Anthropic Messages API, speaking its streaming wire format, so tests
// drive the real `@anthropic-ai/sdk` client end to end and fake nothing but the network peer. It is
// also the engine of the offline demo model (src/demo), which answers through `respond`.
//
//   const server = await startAnthropicServer();
//   server.enqueue(reply.tools([{ name: 'notes_list', input: {} }]), reply.text('You have 2 notes.'));
//   const client = server.client();                  // a real `Anthropic` pointed at the server
//   ...run the code under test...
//   server.requests[1].body.messages                 // exactly what the SDK sent
//   await server.close();
//
// Each POST /v1/messages takes the next scripted reply from the queue (or asks `respond`), records the
// request body, and answers with SSE frames, each with an `event:` line, like the real API:
// message_start, ping, content_block_start / content_block_delta (text_delta, input_json_delta,
// thinking_delta, signature_delta; redacted_thinking whole at its start) / content_block_stop, message_delta (stop_reason, usage; with
// `startUsage`, message_start and message_delta report different cumulative counts),
// message_stop. A request without `stream: true` gets the same message as one JSON body. Scripts can
// also answer with an HTTP error status, an `event: error` frame mid-stream, a dropped connection or
// a frame that is not JSON, stall the stream (silent, or sending only comments or pings), flood it
// with one endless line, and can pause between frames so tests can abort mid-stream.
import type { ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { encodeFrame, type WireEvent } from './wire.js';
import { split, startLoopbackServer, writeFrames, type LoopbackServer, type RecordedRequest } from './loopback.js';

/** One content block of a scripted reply, in the shape the API streams it. */
export type ScriptBlock =
  | {
      type: 'text';
      text: string;
      /** How to split the text into `text_delta` frames. Default: up to 3 roughly equal pieces. */
      chunks?: string[];
    }
  | { type: 'thinking'; thinking: string; signature?: string }
  /** Encrypted thinking: the API sends it whole in content_block_start, with no deltas. */
  | { type: 'redacted_thinking'; data: string }
  | {
      type: 'tool_use';
      /** Default: a unique `toolu_…` id. */
      id?: string;
      name: string;
      input?: unknown;
      /** Sent verbatim as the `input_json_delta` text instead of `JSON.stringify(input)` (for malformed JSON). */
      rawJson?: string;
    };

export type ScriptUsage = {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
};

/**
 * Cuts a streamed reply short after `afterFrames` frames (message_start is frame 1): with an `error`
 * event, a dropped connection or a frame that is not JSON; or stalls it there until the client hangs up
 * (nothing, `: keep-alive` comments or `ping` events every `everyMs`); or floods it with one endless
 * line of `bytes` bytes (see `StreamCut`).
 */
export type Interruption =
  | { afterFrames: number; with: 'error'; errorType?: string; message?: string }
  | { afterFrames: number; with: 'drop' }
  | { afterFrames: number; with: 'garbage' }
  | { afterFrames: number; with: 'silence' | 'comments' | 'pings'; everyMs?: number }
  | { afterFrames: number; with: 'flood'; bytes: number };

/** A streamed assistant message. */
export type MessageScript = {
  type: 'message';
  blocks: ScriptBlock[];
  /** The message id. Default: a unique `msg_…` id. */
  id?: string;
  /** Default: `tool_use` when a block is a tool call, else `end_turn`. */
  stopReason?: string;
  usage?: ScriptUsage;
  /**
   * What `message_start` reports, when it should differ from the final `usage`. The API's counts are
   * cumulative: with this set, `message_delta` carries all four final counts of `usage`, which replace
   * these (clients must overwrite, not add).
   */
  startUsage?: ScriptUsage;
  /** Pause before every frame after the first, in milliseconds. Default 0. */
  frameDelayMs?: number;
  interrupt?: Interruption;
  /** Rewrites the frames before they are sent, for wire-level damage no other option can describe. */
  rewrite?: (frames: WireEvent[]) => WireEvent[];
};

/** A non-200 answer with the API's JSON error body. */
export type HttpErrorScript = {
  type: 'http_error';
  status: number;
  /** API error type, e.g. `overloaded_error`. Default derived from the status. */
  errorType?: string;
  message?: string;
  /** Extra response headers. `retry-after-ms: 0`-style headers steer the SDK's retry timing. */
  headers?: Record<string, string>;
};

export type Script = MessageScript | HttpErrorScript;

export type AnthropicTestServer = Omit<LoopbackServer<Script>, 'origin'> & {
  /** `http://127.0.0.1:<port>`, for the SDK's `baseURL`. */
  readonly baseURL: string;
  /** A real `Anthropic` client for this server; `maxRetries` defaults to 0 so failures surface at once. */
  client(options?: { maxRetries?: number }): Anthropic;
};

let nextId = 0;
const uniqueId = (prefix: string) => `${prefix}_${process.pid}_${++nextId}`;

/** Builders for the common scripts. */
export const reply = {
  /** A plain text answer that ends the turn; `chunks` sets its `text_delta` pieces. */
  text(text: string, options: Omit<MessageScript, 'type' | 'blocks'> & { chunks?: string[] } = {}): MessageScript {
    const { chunks, ...rest } = options;
    return { type: 'message', blocks: [{ type: 'text', text, ...(chunks && { chunks }) }], ...rest };
  },
  /** An answer that calls tools (sanitized names, as the model sees them), optionally after some text. */
  tools(
    calls: Array<{ name: string; input?: unknown; id?: string; rawJson?: string }>,
    options: Omit<MessageScript, 'type' | 'blocks'> & { text?: string } = {},
  ): MessageScript {
    const { text, ...rest } = options;
    const blocks: ScriptBlock[] = text === undefined ? [] : [{ type: 'text', text }];
    for (const call of calls) blocks.push({ type: 'tool_use', ...call });
    return { type: 'message', blocks, ...rest };
  },
  /** Any mix of blocks. */
  message(blocks: ScriptBlock[], options: Omit<MessageScript, 'type' | 'blocks'> = {}): MessageScript {
    return { type: 'message', blocks, ...options };
  },
  /** An HTTP error; the SDK retries 408/409/429/5xx on its own (`retry-after-ms` steers how long it waits). */
  httpError(status: number, options: Omit<HttpErrorScript, 'type' | 'status'> = {}): HttpErrorScript {
    return { type: 'http_error', status, ...options };
  },
};

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export type AnthropicServerOptions = {
  /** Port on 127.0.0.1. Default 0: any free port. */
  port?: number;
};

/** Starts the server on the loopback interface; nothing is scripted yet (see `enqueue`, `respond`). */
export async function startAnthropicServer(options: AnthropicServerOptions = {}): Promise<AnthropicTestServer> {
  const { origin, ...loopback } = await startLoopbackServer<Script>({
    name: 'anthropic-server',
    port: options.port,
    routes: (method, path) => method === 'POST' && path.startsWith('/v1/messages'),
    error: (res, status, message) => sendHttpError(res, { type: 'http_error', status, message, headers: { 'x-should-retry': 'false' } }),
    answer: async (res, record, script) => (script.type === 'http_error' ? sendHttpError(res, script) : answerMessage(res, record, script)),
  });
  return {
    ...loopback,
    baseURL: origin,
    client: (options = {}) => new Anthropic({ baseURL: origin, apiKey: 'test-key', maxRetries: options.maxRetries ?? 0 }),
  };
}

function sendHttpError(res: ServerResponse, script: HttpErrorScript): void {
  const type = script.errorType ?? ERROR_TYPES[script.status] ?? 'api_error';
  res.writeHead(script.status, { 'content-type': 'application/json', 'request-id': uniqueId('req'), ...script.headers });
  res.end(JSON.stringify({ type: 'error', error: { type, message: script.message ?? `scripted ${script.status}` } }));
}

/** The SSE frames of one message, in wire order. */
function framesOf(script: MessageScript, model: string): WireEvent[] {
  const usage = script.usage ?? {};
  const frames: WireEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: script.id ?? uniqueId('msg'),
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: (script.startUsage ?? usage).input_tokens ?? 10,
            output_tokens: script.startUsage?.output_tokens ?? 1,
            cache_creation_input_tokens: (script.startUsage ?? usage).cache_creation_input_tokens ?? 0,
            cache_read_input_tokens: (script.startUsage ?? usage).cache_read_input_tokens ?? 0,
          },
        },
      },
    },
    { event: 'ping', data: { type: 'ping' } },
  ];
  script.blocks.forEach((block, index) => {
    const start = (content_block: Record<string, unknown>) =>
      frames.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block } });
    const delta = (d: unknown) => frames.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    if (block.type === 'text') {
      start({ type: 'text', text: '' });
      for (const piece of block.chunks ?? split(block.text)) delta({ type: 'text_delta', text: piece });
    } else if (block.type === 'thinking') {
      start({ type: 'thinking', thinking: '', signature: '' });
      for (const piece of split(block.thinking)) delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'signature_delta', signature: block.signature ?? 'sig-' + uniqueId('s') });
    } else if (block.type === 'redacted_thinking') {
      start({ type: 'redacted_thinking', data: block.data });
    } else {
      start({ type: 'tool_use', id: block.id ?? uniqueId('toolu'), name: block.name, input: {} });
      const json = block.rawJson ?? JSON.stringify(block.input ?? {});
      for (const piece of split(json)) delta({ type: 'input_json_delta', partial_json: piece });
    }
    frames.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  frames.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: stopReasonOf(script), stop_sequence: null },
      usage:
        script.startUsage === undefined
          ? { output_tokens: usage.output_tokens ?? 5 }
          : {
              input_tokens: usage.input_tokens ?? 10,
              output_tokens: usage.output_tokens ?? 5,
              cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
              cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
            },
    },
  });
  frames.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return frames;
}

function stopReasonOf(script: MessageScript): string {
  return script.stopReason ?? (script.blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
}

/** The whole message as one non-streamed Messages API response body. */
function messageOf(script: MessageScript, model: string): Record<string, unknown> {
  const usage = script.usage ?? {};
  const content = script.blocks.map((block) => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'thinking')
      return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? 'sig-' + uniqueId('s') };
    if (block.type === 'redacted_thinking') return block;
    return { type: 'tool_use', id: block.id ?? uniqueId('toolu'), name: block.name, input: block.input ?? {} };
  });
  return {
    id: script.id ?? uniqueId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(script),
    stop_sequence: null,
    usage: {
      input_tokens: usage.input_tokens ?? 10,
      output_tokens: usage.output_tokens ?? 5,
      cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    },
  };
}

async function answerMessage(res: ServerResponse, record: RecordedRequest, script: MessageScript): Promise<void> {
  const model = String(record.body?.model ?? 'claude-test');
  if (record.body?.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': uniqueId('req') });
    res.end(JSON.stringify(messageOf(script, model)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': uniqueId('req') });
  const built = framesOf(script, model);
  const frames = (script.rewrite ? script.rewrite(built) : built).map(encodeFrame);
  const interrupt = script.interrupt;
  const error = {
    type: interrupt?.with === 'error' ? (interrupt.errorType ?? 'overloaded_error') : 'overloaded_error',
    message: (interrupt?.with === 'error' && interrupt.message) || 'Overloaded',
  };
  await writeFrames(res, record, frames, {
    delayMs: script.frameDelayMs,
    cut: interrupt,
    broken: {
      error: encodeFrame({ event: 'error', data: { type: 'error', error } }),
      garbage: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":\n\n',
      ping: () => encodeFrame({ event: 'ping', data: { type: 'ping' } }),
    },
  });
}
