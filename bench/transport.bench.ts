// The part-stream transport over loopback HTTP: what sendParts (validation, framing, backpressure,
// disconnect watch) and readParts (line splitting, JSON, validation) cost against the raw minimum,
// the same NDJSON bytes written straight to the response and read as plain bytes.
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readParts, sendParts } from '../src/transport/index.js';
import type { AgentPart } from '../src/parts/index.js';
import { median, report, sample } from './stats.js';

const PARTS = 20_000;
const RUNS = 7;

// What a model stream looks like: many short text deltas, now and then a tool part.
async function* parts(): AsyncGenerator<AgentPart> {
  for (let i = 0; i < PARTS; i++) {
    if (i % 500 === 0) yield { type: 'tool', name: 'notes.list', callId: `c${i}`, input: { folder: 'inbox' }, result: ['a', 'b', 'c'] };
    else yield { type: 'text', text: `word${i % 97} and more ` };
  }
}

async function rawWrite(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for await (const part of parts()) {
    if (!res.write(`${JSON.stringify({ frame: 'part', part })}\n`)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end('{"frame":"end"}\n');
}

const server = createServer((req, res) => {
  if (req.url === '/raw') void rawWrite(res);
  else void sendParts(res, parts());
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function drainBytes(path: string): Promise<void> {
  const reader = (await fetch(base + path)).body!.getReader();
  while (!(await reader.read()).done);
}

async function readAll(path: string): Promise<void> {
  let count = 0;
  for await (const _ of readParts(await fetch(base + path))) count++;
  if (count !== PARTS) throw new Error(`read ${count} parts, expected ${PARTS}`);
}

await sample(2, () => drainBytes('/parts'));
await sample(2, () => drainBytes('/raw'));

const serverSubject = median(await sample(RUNS, () => drainBytes('/parts')));
const serverBaseline = median(await sample(RUNS, () => drainBytes('/raw')));
report(`sendParts, ${PARTS} parts (client reads bytes)`, serverSubject, serverBaseline, 'ms');

const clientSubject = median(await sample(RUNS, () => readAll('/raw')));
const clientBaseline = median(await sample(RUNS, () => drainBytes('/raw')));
report(`readParts, ${PARTS} parts (server writes raw)`, clientSubject, clientBaseline, 'ms');

server.close();
