// What reading a model's stream through the event cap costs, through the real @anthropic-ai/sdk and
// the Anthropic invoker over loopback HTTP: a typical reply (many small deltas) capped against the
// same invoker with the cap off (`maxEventBytes: Infinity`), and one long event (a 4 MB delta, below
// the cap, as a server writes it in 16 KB pieces), where the cap scans every byte the SDK then parses.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropicInvoker } from '../src/providers/anthropic/index.js';
import type { ModelRequest } from '../src/runtime/contract/model.js';
import { capEvents } from '../src/providers/shared/index.js';
import { fmt, median, report, sample } from './stats.js';

const DELTAS = 20_000;
const LONG_EVENT_BYTES = 4 * 1024 * 1024;
const PIECE = 16 * 1024;
const RUNS = 15;

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const start = frame('message_start', {
  type: 'message_start',
  message: {
    id: 'msg_bench',
    type: 'message',
    role: 'assistant',
    model: 'claude-bench',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 1 },
  },
});
const end =
  frame('content_block_stop', { type: 'content_block_stop', index: 0 }) +
  frame('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }) +
  frame('message_stop', { type: 'message_stop' });
const blockStart = frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
const delta = (text: string) =>
  frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });

async function write(res: ServerResponse, text: string): Promise<void> {
  if (!res.write(text)) await new Promise((resolve) => res.once('drain', resolve));
}

const server = createServer(async (req, res) => {
  for await (const _ of req);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  await write(res, start + blockStart);
  if (req.url?.includes('long')) {
    const line = delta('x'.repeat(LONG_EVENT_BYTES));
    // One piece per turn of the event loop, so the client reads it as its own chunk, as over a network.
    for (let at = 0; at < line.length; at += PIECE) {
      await write(res, line.slice(at, at + PIECE));
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  } else {
    let batch = '';
    for (let i = 0; i < DELTAS; i++) {
      batch += delta(`word${i % 97} `);
      if (batch.length > PIECE) {
        await write(res, batch);
        batch = '';
      }
    }
    await write(res, batch);
  }
  res.end(end);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const request: ModelRequest = {
  model: 'claude-bench',
  messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
  tools: [],
  maxOutputTokens: 100,
};
const invoker = (path: string, maxEventBytes: number) =>
  createAnthropicInvoker(new Anthropic({ baseURL: `${origin}${path}`, apiKey: 'k', maxRetries: 0 }), { maxEventBytes, cache: 'off' });

async function read(path: string, maxEventBytes: number, expected: number): Promise<void> {
  const reply = await invoker(path, maxEventBytes)(request);
  const text = reply.turn.blocks[0];
  if (text?.kind !== 'text' || text.text.length !== expected) throw new Error(`read the wrong reply from ${path}`);
}

const typical = Array.from({ length: DELTAS }, (_, i) => `word${i % 97} `).join('').length;
for (const [path, expected] of [
  ['/typical', typical],
  ['/long', LONG_EVENT_BYTES],
] as const) {
  await sample(2, () => read(path, 8 * 1024 * 1024, expected));
  await sample(2, () => read(path, Infinity, expected));
}

/** Medians of `a` and `b`, run alternately so that a change in the machine's load falls on both alike. */
async function paired(a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    first.push(...(await sample(1, a)));
    second.push(...(await sample(1, b)));
  }
  return [median(first), median(second)];
}

const [typicalCapped, typicalRaw] = await paired(
  () => read('/typical', 8 * 1024 * 1024, typical),
  () => read('/typical', Infinity, typical),
);
report(`a typical reply, ${DELTAS} deltas, capped vs the cap off`, typicalCapped, typicalRaw, 'ms', 1.15);

const [longCapped, longRaw] = await paired(
  () => read('/long', 8 * 1024 * 1024, LONG_EVENT_BYTES),
  () => read('/long', Infinity, LONG_EVENT_BYTES),
);
report(`one 4 MB event in 16 KB pieces, capped vs the cap off`, longCapped, longRaw, 'ms', 1.15);

// The transform alone, in process, against a pass-through that does nothing: what the scan costs per byte.
const typicalChunks = chunked(new TextEncoder().encode(Array.from({ length: DELTAS }, (_, i) => delta(`word${i % 97} `)).join('')));
const longChunks = chunked(new TextEncoder().encode(delta('x'.repeat(LONG_EVENT_BYTES))));
for (const chunks of [typicalChunks, longChunks]) {
  await sample(3, () => pipe(chunks, capEvents(8 * 1024 * 1024)));
  await sample(3, () => pipe(chunks, new TransformStream()));
}
const [scanTypical, passTypical] = await paired(
  () => pipe(typicalChunks, capEvents(8 * 1024 * 1024)),
  () => pipe(typicalChunks, new TransformStream()),
);
report(
  `capEvents alone, the typical reply's ${fmt(bytesOf(typicalChunks) / 2 ** 20)} MB, vs a bare TransformStream`,
  scanTypical,
  passTypical,
  'ms',
);
const [scanLong, passLong] = await paired(
  () => pipe(longChunks, capEvents(8 * 1024 * 1024)),
  () => pipe(longChunks, new TransformStream()),
);
report(`capEvents alone, the 4 MB event, vs a bare TransformStream`, scanLong, passLong, 'ms');

function chunked(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += PIECE) chunks.push(bytes.subarray(at, at + PIECE));
  return chunks;
}

function bytesOf(chunks: Uint8Array[]): number {
  return chunks.reduce((sum, chunk) => sum + chunk.length, 0);
}

async function pipe(chunks: Uint8Array[], through: TransformStream<Uint8Array, Uint8Array>): Promise<void> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const reader = source.pipeThrough(through).getReader();
  while (!(await reader.read()).done);
}

server.close();
