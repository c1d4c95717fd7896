import { describe, expect, it } from 'vitest';
import {
  PartStreamHttpError,
  PartStreamProtocolError,
  PartStreamTruncatedError,
  RemoteStreamError,
  encodePartFrame,
  fetchParts,
  readParts,
} from '../../src/transport/index.js';
import { text, tool } from '../chat/channel.js';
import { deferred, startServer, turn } from './server.js';
import { collect, serversClosedAfterEach } from './helpers.js';

const servers = serversClosedAfterEach();

const NDJSON = { 'content-type': 'application/x-ndjson; charset=utf-8' };

/** A Response whose body arrives in exactly these chunks; records whether the reader cancelled it. */
function chunkedResponse(chunks: Uint8Array[], init: ResponseInit = { headers: NDJSON }) {
  const state = { cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body, init), state };
}

const bytes = (s: string) => new TextEncoder().encode(s);
const lines = (...frames: string[]) => bytes(frames.join(''));

const wire = [text('héllo 🙂 '), tool('c1', { result: { text: 'line\nbreak' } }), text('end')];
const wireBytes = lines(...wire.map((part) => encodePartFrame({ frame: 'part', part })), encodePartFrame({ frame: 'end' }));

describe('readParts', () => {
  it('reassembles frames split at every byte, multi-byte characters included', async () => {
    const chunks = Array.from(wireBytes, (b) => Uint8Array.of(b));
    expect(await collect(readParts(chunkedResponse(chunks).response))).toEqual({ parts: wire });
  });

  it('reads frames that arrive several to a chunk', async () => {
    expect(await collect(readParts(chunkedResponse([wireBytes]).response))).toEqual({ parts: wire });
  });

  it('accepts CRLF line ends and blank keep-alive lines', async () => {
    const body = `\n${JSON.stringify({ frame: 'part', part: text('a') })}\r\n\r\n${JSON.stringify({ frame: 'end' })}\r\n`;
    expect(await collect(readParts(chunkedResponse([bytes(body)]).response))).toEqual({ parts: [text('a')] });
  });

  it('throws the server error frame as RemoteStreamError after the parts before it', async () => {
    const body = lines(
      encodePartFrame({ frame: 'part', part: text('a') }),
      encodePartFrame({ frame: 'error', error: { kind: 'tool_error', message: 'no such note' } }),
    );
    const { parts, error } = await collect(readParts(chunkedResponse([body]).response));
    expect(parts).toEqual([text('a')]);
    expect(RemoteStreamError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'remote_error', remoteKind: 'tool_error', message: 'no such note' });
  });

  it.each([
    ['no end frame', encodePartFrame({ frame: 'part', part: text('a') })],
    ['a half-written last line', `${encodePartFrame({ frame: 'part', part: text('a') })}{"frame":"en`],
    ['an empty body', ''],
  ])('throws PartStreamTruncatedError for %s, keeping the parts that came', async (_, body) => {
    const { parts, error } = await collect(readParts(chunkedResponse([bytes(body)]).response));
    expect(PartStreamTruncatedError.isInstance(error)).toBe(true);
    expect(parts).toEqual(body.startsWith('{"frame":"part"') ? [text('a')] : []);
  });

  it.each([
    ['a line that is not JSON', 'data: {"text":"sse?"}\n', /Line 1 is not JSON/],
    ['an unknown frame', '{"frame":"ping"}\n', /not a part-stream frame/],
    ['an array', '[1,2]\n', /not a part-stream frame/],
    ['an invalid part', '{"frame":"part","part":{"type":"tool","name":"x"}}\n', /invalid part.*callId/],
    ['an error frame without a message', '{"frame":"error","error":{"kind":"x"}}\n', /error frame without/],
  ])('throws PartStreamProtocolError for %s and cancels the body', async (_, body, message) => {
    const { response, state } = chunkedResponse([bytes(body), bytes('{"frame":"end"}\n')]);
    const { error } = await collect(readParts(response));
    expect(PartStreamProtocolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect(state.cancelled).toBe(true);
  });

  it('refuses bytes that are not UTF-8', async () => {
    const { error } = await collect(readParts(chunkedResponse([Uint8Array.of(0x7b, 0xff, 0xfe, 0x0a)]).response));
    expect(PartStreamProtocolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/UTF-8/);
  });

  it('refuses a line longer than maxLineLength, even before its newline arrives', async () => {
    const endless = Array.from({ length: 50 }, () => bytes('x'.repeat(100)));
    const { response, state } = chunkedResponse(endless);
    const { error } = await collect(readParts(response, { maxLineLength: 1000 }));
    expect(PartStreamProtocolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/longer than 1000/);
    expect(state.cancelled).toBe(true);
  });

  it('refuses a response that is not a part stream', async () => {
    const html = await collect(readParts(new Response('<html>', { headers: { 'content-type': 'text/html' } })));
    expect(PartStreamProtocolError.isInstance(html.error)).toBe(true);
    expect((html.error as Error).message).toMatch(/text\/html/);

    const failed = await collect(readParts(new Response('model overloaded', { status: 503 })));
    expect(PartStreamHttpError.isInstance(failed.error)).toBe(true);
    expect(failed.error).toMatchObject({ status: 503, body: 'model overloaded' });
  });

  it('cancels the body when the consumer stops early', async () => {
    const firstLine = wireBytes.indexOf(0x0a) + 1;
    const { response, state } = chunkedResponse([wireBytes.subarray(0, firstLine), wireBytes.subarray(firstLine)]);
    for await (const part of readParts(response)) {
      expect(part).toEqual(wire[0]);
      break;
    }
    expect(state.cancelled).toBe(true);
  });

  it('throws the abort reason and cancels the body when its signal fires mid-read', async () => {
    const cancelled = deferred<void>();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes(encodePartFrame({ frame: 'part', part: text('a') })));
      },
      cancel() {
        cancelled.resolve();
      },
    });
    const controller = new AbortController();
    const parts = readParts(new Response(body, { headers: NDJSON }), { signal: controller.signal });
    expect((await parts.next()).value).toEqual(text('a'));
    const pending = parts.next();
    const reason = new Error('user left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await cancelled.promise;
  });

  it('hands out no buffered part once its signal has fired', async () => {
    const controller = new AbortController();
    const parts = readParts(chunkedResponse([wireBytes]).response, { signal: controller.signal });
    expect((await parts.next()).value).toEqual(wire[0]);
    controller.abort();
    await expect(parts.next()).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('fetchParts over a real connection', () => {
  it('reads frames a server writes in pieces split mid-line and mid-character', async () => {
    const server = await startServer(async (_req, res) => {
      res.writeHead(200, NDJSON);
      res.flushHeaders();
      // Cut inside a frame, inside the two-byte "é" and inside the four-byte emoji.
      const e = wireBytes.indexOf(0xc3);
      const emoji = wireBytes.indexOf(0xf0);
      let start = 0;
      for (const cut of [3, 17, e + 1, emoji + 1, emoji + 3, wireBytes.length]) {
        res.write(wireBytes.subarray(start, cut));
        start = cut;
        await turn();
      }
      res.end();
    });
    servers.push(server);
    expect(await collect(fetchParts(server.url))).toEqual({ parts: wire });
  });

  it('sends the JSON body with POST and asks for NDJSON', async () => {
    const seen = deferred<{ method?: string; accept?: string; type?: string; body: string }>();
    const server = await startServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      seen.resolve({ method: req.method, accept: req.headers.accept, type: req.headers['content-type'], body });
      res.writeHead(200, NDJSON);
      res.end(encodePartFrame({ frame: 'end' }));
    });
    servers.push(server);
    await collect(fetchParts(server.url, { json: { prompt: 'hi', history: [] } }));
    expect(await seen.promise).toEqual({
      method: 'POST',
      accept: 'application/x-ndjson',
      type: 'application/json',
      body: '{"prompt":"hi","history":[]}',
    });
  });

  it('throws PartStreamTruncatedError when the server dies mid-stream', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, NDJSON);
      res.write(encodePartFrame({ frame: 'part', part: text('a') }), () => res.destroy());
    });
    servers.push(server);
    const { parts, error } = await collect(fetchParts(server.url));
    expect(parts).toEqual([text('a')]);
    expect(PartStreamTruncatedError.isInstance(error)).toBe(true);
  });
});
