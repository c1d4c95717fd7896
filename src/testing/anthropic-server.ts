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
import { createRequire } from 'node:module';
import type Anthropic from '@anthropic-ai/sdk';
import { encodeFrame, type WireEvent } from './wire.js';
import { split, startLoopbackServer, writeFrames, type LoopbackServer, type RecordedRequest } from './loopback.js';

/**
 * What each kind of scripted block holds, in the shape the API streams it. A block names its kind with
 * `kind`, as indusagi's turns and events do (`{ kind: 'text', text }`); `type`, the API's word, which the
 * first scripts used, is still accepted.
 */
export type ScriptBlockFields = {
  text: {
    text: string;
    /** How to split the text into `text_delta` frames. Default: up to 3 roughly equal pieces. */
    chunks?: string[];
  };
  thinking: { thinking: string; signature?: string };
  /** Encrypted thinking: the API sends it whole in content_block_start, with no deltas. */
  redacted_thinking: { data: string };
  tool_use: {
    /** Default: a unique `toolu_…` id. */
    id?: string;
    name: string;
    input?: unknown;
    /** Sent verbatim as the `input_json_delta` text instead of `JSON.stringify(input)` (for malformed JSON). */
    rawJson?: string;
  };
};

/** `{ kind: K }`, or `{ type: K }` as the first scripts were written; never both. */
export type ScriptTag<K extends string> = { kind: K; type?: never } | { type: K; kind?: never };

/** One content block of a scripted reply: `{ kind: 'text', text }`, `{ kind: 'tool_use', name, input }`… */
export type ScriptBlock = { [K in keyof ScriptBlockFields]: ScriptTag<K> & ScriptBlockFields[K] }[keyof ScriptBlockFields];

/** A block as the server reads it: always `kind`. */
type KindBlock = { [K in keyof ScriptBlockFields]: { kind: K } & ScriptBlockFields[K] }[keyof ScriptBlockFields];

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

/** A streamed assistant message (`kind: 'message'`). */
export type MessageScript = ScriptTag<'message'> & {
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

/** A non-200 answer with the API's JSON error body (`kind: 'http_error'`). */
export type HttpErrorScript = ScriptTag<'http_error'> & {
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

/** What a builder's options may set: everything but the tag and the blocks (or status) it fills in. */
type MessageOptions = Omit<MessageScript, 'kind' | 'type' | 'blocks'>;

/** Builders for the common scripts. */
export const reply = {
  /** A plain text answer that ends the turn; `chunks` sets its `text_delta` pieces. */
  text(text: string, options: MessageOptions & { chunks?: string[] } = {}): MessageScript {
    const { chunks, ...rest } = options;
    return { kind: 'message', blocks: [{ kind: 'text', text, ...(chunks && { chunks }) }], ...rest };
  },
  /** An answer that calls tools (sanitized names, as the model sees them), optionally after some text. */
  tools(
    calls: Array<{ name: string; input?: unknown; id?: string; rawJson?: string }>,
    options: MessageOptions & { text?: string } = {},
  ): MessageScript {
    const { text, ...rest } = options;
    const blocks: ScriptBlock[] = text === undefined ? [] : [{ kind: 'text', text }];
    for (const call of calls) blocks.push({ kind: 'tool_use', ...call });
    return { kind: 'message', blocks, ...rest };
  },
  /** Any mix of blocks. */
  message(blocks: ScriptBlock[], options: MessageOptions = {}): MessageScript {
    return { kind: 'message', blocks, ...options };
  },
  /** An HTTP error; the SDK retries 408/409/429/5xx on its own (`retry-after-ms` steers how long it waits). */
  httpError(status: number, options: Omit<HttpErrorScript, 'kind' | 'type' | 'status'> = {}): HttpErrorScript {
    return { kind: 'http_error', status, ...options };
  },
};

const SCRIPT_KINDS = new Set(['message', 'http_error']);
const BLOCK_KINDS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);

/** The script's kind, whether it says `kind` or `type`; a script that says neither (or both, differently) is a test's bug. */
function tagOf(script: { kind?: unknown; type?: unknown }, known: Set<string>, what: string): string {
  const { kind, type } = script;
  if (kind !== undefined && type !== undefined && kind !== type)
    throw new TypeError(`a ${what} says kind ${JSON.stringify(kind)} and type ${JSON.stringify(type)}; give one`);
  const tag = kind ?? type;
  if (typeof tag !== 'string' || !known.has(tag))
    throw new TypeError(`a ${what} needs a kind (${[...known].join(', ')}), got ${JSON.stringify(tag)}`);
  return tag;
}

/** The blocks of a message script, each with `kind`. */
function kindBlocks(script: MessageScript): KindBlock[] {
  return script.blocks.map((block) => {
    const { type: _type, ...rest } = block as ScriptBlock & { type?: string };
    return { ...rest, kind: tagOf(block, BLOCK_KINDS, 'script block') } as KindBlock;
  });
}

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
    error: (res, status, message) => sendHttpError(res, { kind: 'http_error', status, message, headers: { 'x-should-retry': 'false' } }),
    answer: async (res, record, script) =>
      tagOf(script, SCRIPT_KINDS, 'script') === 'http_error'
        ? sendHttpError(res, script as HttpErrorScript)
        : answerMessage(res, record, script as MessageScript),
  });
  return {
    ...loopback,
    baseURL: origin,
    client: (options = {}) => new (sdk())({ baseURL: origin, apiKey: 'test-key', maxRetries: options.maxRetries ?? 0 }),
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
  kindBlocks(script).forEach((block, index) => {
    const start = (content_block: Record<string, unknown>) =>
      frames.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block } });
    const delta = (d: unknown) => frames.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    if (block.kind === 'text') {
      start({ type: 'text', text: '' });
      for (const piece of block.chunks ?? split(block.text)) delta({ type: 'text_delta', text: piece });
    } else if (block.kind === 'thinking') {
      start({ type: 'thinking', thinking: '', signature: '' });
      for (const piece of split(block.thinking)) delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'signature_delta', signature: block.signature ?? 'sig-' + uniqueId('s') });
    } else if (block.kind === 'redacted_thinking') {
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
  return script.stopReason ?? (kindBlocks(script).some((b) => b.kind === 'tool_use') ? 'tool_use' : 'end_turn');
}

/** The whole message as one non-streamed Messages API response body. */
function messageOf(script: MessageScript, model: string): Record<string, unknown> {
  const usage = script.usage ?? {};
  const content = kindBlocks(script).map((block) => {
    if (block.kind === 'text') return { type: 'text', text: block.text };
    if (block.kind === 'thinking')
      return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? 'sig-' + uniqueId('s') };
    if (block.kind === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data };
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
  // The answer is built before its status goes out, so a script it cannot read still gets the 500 that says why.
  if (record.body?.stream !== true) {
    const body = JSON.stringify(messageOf(script, model));
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': uniqueId('req') });
    res.end(body);
    return;
  }
  const built = framesOf(script, model);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': uniqueId('req') });
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

// The SDK's client class, loaded on the first `client()` (the demo model runs on this server, and `npm start`
// shows its first prompt before the SDK's ~270 modules load); synchronously, as `client()` is, so through its
// CommonJS build, which keeps no module state a client of the other build would miss.
function sdk(): typeof Anthropic {
  loadedSdk ??= (createRequire(import.meta.url)('@anthropic-ai/sdk') as { Anthropic: typeof Anthropic }).Anthropic;
  return loadedSdk;
}
let loadedSdk: typeof Anthropic | undefined;
