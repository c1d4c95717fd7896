import { request } from 'node:http';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  ClientDisconnectedError,
  PART_STREAM_CONTENT_TYPE,
  RemoteStreamError,
  fetchParts,
  readParts,
  sendParts,
} from '../../src/transport/index.js';
import type { PartSource, PartStreamOutcome, SendPartsOptions } from '../../src/transport/index.js';
import { createAssistantStore } from '../../src/chat/index.js';
import type { AssistantItem } from '../../src/chat/index.js';
import { ToolError } from '../../src/entries/errors.js';
import type { AgentPart } from '../../src/parts/index.js';
import { text, tool } from '../chat/channel.js';
import { deferred, readJson, startServer, turn } from './server.js';
import { collect, serversClosedAfterEach } from './helpers.js';

const servers = serversClosedAfterEach();

/** A server whose every request streams `source` through sendParts; `outcomes` holds each call's result. */
async function serve(source: (body: unknown) => PartSource, options: SendPartsOptions = {}) {
  const outcomes: Promise<PartStreamOutcome>[] = [];
  const server = await startServer((req, res) => {
    const body = req.method === 'POST' ? readJson(req) : Promise.resolve(null);
    outcomes.push(body.then((json) => sendParts(res, source(json), options)));
  });
  servers.push(server);
  return { url: server.url, outcomes };
}

/** Opens a raw request, waits for the first bytes of the body, then drops the connection. */
function disconnectAfterFirstChunk(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET' }, (res) => {
      res.once('data', (chunk: Buffer) => {
        req.destroy();
        resolve(chunk.toString('utf8'));
      });
    });
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}

describe('sendParts over node:http', () => {
  it('streams every part in order as NDJSON, ends with an end frame, and reports completed', async () => {
    const sent = [
      text('Hello, '),
      text('world'),
      tool('c1', { result: { rows: [1, 2] } }),
      { type: 'context', source: 'memory', op: 'recalled', records: [] } as AgentPart,
    ];
    const { url, outcomes } = await serve(() =>
      (async function* () {
        yield* sent;
      })(),
    );

    const response = await fetch(url);
    expect(response.headers.get('content-type')).toBe(PART_STREAM_CONTENT_TYPE);
    expect(response.headers.get('cache-control')).toContain('no-cache');
    const raw = await response.text();
    expect(raw.split('\n')).toEqual([...sent.map((part) => JSON.stringify({ frame: 'part', part })), '{"frame":"end"}', '']);
    expect(await outcomes[0]).toBe('completed');

    expect(await collect(fetchParts(url))).toEqual({ parts: sent });
  });

  it('hands the request body to the source, as a chat endpoint needs', async () => {
    const { url } = await serve((body) =>
      (async function* () {
        const { prompt, history } = body as { prompt: string; history: AssistantItem[] };
        yield text(`${prompt} after ${history.length} items`);
      })(),
    );
    const { parts } = await collect(fetchParts(url, { json: { prompt: 'hi', history: [{ role: 'user', text: 'x' }] } }));
    expect(parts).toEqual([text('hi after 1 items')]);
  });

  it('turns a ToolError in the source into an error frame the client throws as RemoteStreamError', async () => {
    const errors: Array<{ error: unknown; afterDisconnect: boolean }> = [];
    const failure = new ToolError('The notes service is down.');
    const { url, outcomes } = await serve(
      () =>
        (async function* () {
          yield text('Checking');
          throw failure;
        })(),
      { onError: (error, { afterDisconnect }) => errors.push({ error, afterDisconnect }) },
    );
    const { parts, error } = await collect(fetchParts(url));
    expect(parts).toEqual([text('Checking')]);
    expect(RemoteStreamError.isInstance(error)).toBe(true);
    expect((error as RemoteStreamError).remoteKind).toBe('tool_error');
    expect((error as RemoteStreamError).message).toBe('The notes service is down.');
    expect(await outcomes[0]).toBe('failed');
    expect(errors).toEqual([{ error: failure, afterDisconnect: false }]);
  });

  it('keeps the message of an unexpected error on the server and tells the client only "Internal error"', async () => {
    const errors: unknown[] = [];
    const secret = new Error('connect ECONNREFUSED db.internal:5432 password=hunter2');
    const { url } = await serve(
      () =>
        (async function* () {
          throw secret;
        })(),
      { onError: (error) => errors.push(error) },
    );
    const { error } = await collect(fetchParts(url));
    expect((error as RemoteStreamError).remoteKind).toBe('internal');
    expect((error as Error).message).toBe('Internal error');
    expect(errors).toEqual([secret]);
  });

  it('lets describeError choose what the client learns', async () => {
    const { url } = await serve(
      () =>
        (async function* () {
          throw Object.assign(new Error('rate limited'), { status: 429 });
        })(),
      { onError: () => undefined, describeError: (e) => ({ kind: 'upstream', message: `upstream said: ${(e as Error).message}` }) },
    );
    const { error } = await collect(fetchParts(url));
    expect((error as RemoteStreamError).remoteKind).toBe('upstream');
    expect((error as Error).message).toBe('upstream said: rate limited');
  });

  it('refuses a part that is not an AgentPart with an error frame and closes the source', async () => {
    let closed = false;
    const { url, outcomes } = await serve(
      () =>
        (async function* () {
          try {
            yield text('fine');
            yield { type: 'tool', name: 'x' } as unknown as AgentPart;
            yield text('never sent');
          } finally {
            closed = true;
          }
        })(),
      { onError: () => undefined },
    );
    const { parts, error } = await collect(fetchParts(url));
    expect(parts).toEqual([text('fine')]);
    expect((error as RemoteStreamError).remoteKind).toBe('invalid_part');
    expect(await outcomes[0]).toBe('failed');
    expect(closed).toBe(true);
  });

  it('when the client disconnects mid-stream: the signal fires, the generator is closed, and it reports disconnected', async () => {
    const errors: Array<{ error: unknown; afterDisconnect: boolean }> = [];
    let seenSignal: AbortSignal | undefined;
    let finallyRan = false;
    const { url, outcomes } = await serve(
      () => (signal) =>
        (async function* () {
          seenSignal = signal;
          try {
            yield text('first');
            // Stands in for a long model call that honours its signal.
            await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
            yield text('never');
          } finally {
            finallyRan = true;
          }
        })(),
      { onError: (error, { afterDisconnect }) => errors.push({ error, afterDisconnect }) },
    );

    const first = await disconnectAfterFirstChunk(url);
    expect(first).toContain('"first"');
    expect(await outcomes[0]).toBe('disconnected');
    expect(seenSignal?.aborted).toBe(true);
    expect(ClientDisconnectedError.isInstance(seenSignal?.reason)).toBe(true);
    expect(finallyRan).toBe(true);
    // The source's reaction to the abort is reported, marked as coming after the disconnect.
    expect(errors).toHaveLength(1);
    expect(errors[0].afterDisconnect).toBe(true);
    expect(ClientDisconnectedError.isInstance(errors[0].error)).toBe(true);
  });

  it('calls return() on a source that ignores its signal and never yields again', async () => {
    const returned = deferred<void>();
    let pulls = 0;
    const stuck: AsyncIterable<AgentPart> = {
      [Symbol.asyncIterator]: () => ({
        next: () => (++pulls === 1 ? Promise.resolve({ value: text('only'), done: false }) : new Promise<never>(() => {})),
        return: async () => {
          returned.resolve();
          return { value: undefined, done: true };
        },
      }),
    };
    const { url, outcomes } = await serve(() => stuck);
    await disconnectAfterFirstChunk(url);
    await returned.promise;
    expect(await outcomes[0]).toBe('disconnected');
  });

  it('stops pulling from the source while the client is not reading (backpressure), then delivers everything', async () => {
    const total = 100;
    const size = 256 * 1024;
    let produced = 0;
    const { url, outcomes } = await serve(() =>
      (async function* () {
        for (let i = 0; i < total; i++) {
          produced++;
          yield text(String(i % 10).repeat(size));
        }
      })(),
    );

    const received = deferred<number>();
    let paused!: () => void;
    const req = request(url, (res) => {
      res.pause();
      let bytes = 0;
      paused = () => {
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => received.resolve(bytes));
        res.resume();
      };
    });
    req.end();
    while (produced === 0) await turn();
    for (let i = 0; i < 50; i++) await turn();
    // Without backpressure every part would be produced (and buffered in memory) at once.
    expect(produced).toBeLessThan(total / 2);

    paused();
    const bytes = await received.promise;
    expect(produced).toBe(total);
    expect(bytes).toBeGreaterThan(total * size);
    expect(await outcomes[0]).toBe('completed');
  });
});

describe('the store, fetchParts and sendParts together', () => {
  it('runs a chat turn against a real server and stopping it disconnects the server side', async () => {
    let serverSignal: AbortSignal | undefined;
    const { url, outcomes } = await serve(
      (body) => (signal) =>
        (async function* () {
          serverSignal = signal;
          const { prompt, history } = body as { prompt: string; history: AssistantItem[] };
          yield text(`You said "${prompt}"`);
          yield text(` (${history.length} earlier items).`);
          if (prompt === 'wait') await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        })(),
      { onError: () => undefined },
    );
    const store = createAssistantStore({
      stream: (prompt, history, { signal }) => fetchParts(url, { json: { prompt, history }, signal }),
    });

    store.setInput('hello');
    await store.send();
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('You said "hello" (0 earlier items).')] });
    expect(await outcomes[0]).toBe('completed');

    const waiting = store.send('wait');
    while (store.getState().items[3]?.role !== 'assistant' || (store.getState().items[3] as { parts: unknown[] }).parts.length === 0)
      await turn();
    expect(store.getState().items[3]).toEqual({ role: 'assistant', parts: [text('You said "wait" (2 earlier items).')] });
    store.stop();
    await waiting;
    expect(await outcomes[1]).toBe('disconnected');
    expect(serverSignal?.aborted).toBe(true);
    expect(store.getState().busy).toBe(false);
  });
});

describe('sendParts edge cases', () => {
  it('keeps headers the caller already sent and adds its own extra headers otherwise', async () => {
    const server = await startServer((req, res: ServerResponse) => {
      if (req.url === '/preset') res.writeHead(200, { 'content-type': 'application/x-ndjson', 'x-preset': 'yes' });
      void sendParts(
        res,
        (async function* () {
          yield text('x');
        })(),
        { headers: { 'access-control-allow-origin': '*' } },
      );
    });
    servers.push(server);
    const preset = await fetch(`${server.url}preset`);
    expect(preset.headers.get('x-preset')).toBe('yes');
    expect(preset.headers.get('access-control-allow-origin')).toBeNull();
    expect(await collect(readParts(preset))).toEqual({ parts: [text('x')] });
    const plain = await fetch(server.url);
    expect(plain.headers.get('access-control-allow-origin')).toBe('*');
    expect(await collect(readParts(plain))).toEqual({ parts: [text('x')] });
  });
});
