import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import {
  ClientDisconnectedError,
  PART_STREAM_CONTENT_TYPE,
  PartStreamTruncatedError,
  RemoteStreamError,
  fetchParts,
  partsResponse,
  readParts,
} from '../../src/transport/index.js';
import { ToolError } from '../../src/entries/errors.js';
import type { AgentPart } from '../../src/parts/index.js';
import { text } from '../chat/channel.js';
import { deferred, startServer, turn } from './server.js';
import { collect, serversClosedAfterEach } from './helpers.js';

const servers = serversClosedAfterEach();

/** A source that waits on its signal after `parts`, recording how it was stopped. */
function waitingSource(parts: AgentPart[]) {
  const seen = { signal: undefined as AbortSignal | undefined, finallyRan: false, pulls: 0 };
  const source = (signal: AbortSignal) =>
    (async function* () {
      seen.signal = signal;
      try {
        for (const part of parts) {
          seen.pulls++;
          yield part;
        }
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      } finally {
        seen.finallyRan = true;
      }
    })();
  return { source, seen };
}

describe('partsResponse (web Response)', () => {
  it('is a streaming NDJSON Response that readParts reads back', async () => {
    const parts = [text('a'), text('ü🙂'), { type: 'memory', op: 'saved', records: [] } as AgentPart];
    const response = partsResponse(
      (async function* () {
        yield* parts;
      })(),
      { headers: { 'access-control-allow-origin': '*' } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(PART_STREAM_CONTENT_TYPE);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await collect(readParts(response))).toEqual({ parts });
  });

  it('turns an error in the source into an error frame', async () => {
    const response = partsResponse(
      (async function* () {
        yield text('a');
        throw new ToolError('quota exceeded');
      })(),
      { onError: () => undefined },
    );
    const { parts, error } = await collect(readParts(response));
    expect(parts).toEqual([text('a')]);
    expect(RemoteStreamError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('quota exceeded');
  });

  it('answers a part that cannot be serialized with an error frame, reports it and closes the source', async () => {
    const errors: unknown[] = [];
    let closed = false;
    const response = partsResponse(
      (async function* () {
        try {
          yield text('a');
          yield { type: 'tool', name: 'count', callId: 'c1', input: {}, result: 10n } as AgentPart;
        } finally {
          closed = true;
        }
      })(),
      { onError: (error) => errors.push(error) },
    );
    const { parts, error } = await collect(readParts(response));
    expect(parts).toEqual([text('a')]);
    expect((error as RemoteStreamError).remoteKind).toBe('internal');
    expect(errors[0]).toBeInstanceOf(TypeError);
    expect(closed).toBe(true);
  });

  it('pulls from the source only as fast as the body is read', async () => {
    let pulls = 0;
    const response = partsResponse(
      (async function* () {
        for (let i = 0; i < 1000; i++) {
          pulls++;
          yield text(String(i));
        }
      })(),
    );
    const reader = response.body!.getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    for (let i = 0; i < 10; i++) await turn();
    expect(pulls).toBeLessThanOrEqual(5);
    await reader.cancel();
  });

  it('cancelling the body fires the source signal and closes the source', async () => {
    const { source, seen } = waitingSource([text('one')]);
    const response = partsResponse(source, { onError: () => undefined });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(seen.signal?.aborted).toBe(true);
    expect(ClientDisconnectedError.isInstance(seen.signal?.reason)).toBe(true);
    expect(seen.finallyRan).toBe(true);
  });

  it('stops the source when the request signal fires, and the client sees a cut stream', async () => {
    const { source, seen } = waitingSource([text('one')]);
    const request = new AbortController();
    const response = partsResponse(source, { signal: request.signal, onError: () => undefined });
    const parts = readParts(response);
    expect((await parts.next()).value).toEqual(text('one'));
    const rest = parts.next();
    request.abort();
    await expect(rest).rejects.toBeInstanceOf(PartStreamTruncatedError);
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.finallyRan).toBe(true);
  });

  it('served through node:http (as node adapters do with a web Response), a client disconnect closes the source', async () => {
    const { source, seen } = waitingSource([text('one')]);
    const finished = deferred<void>();
    const server = await startServer((_req, res) => {
      const response = partsResponse(source, { onError: () => undefined });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      void pipeline(Readable.fromWeb(response.body! as import('node:stream/web').ReadableStream), res)
        .catch(() => undefined)
        .then(() => finished.resolve());
    });
    servers.push(server);

    await new Promise<void>((resolve, reject) => {
      const req = request(server.url, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
      req.end();
    });
    await finished.promise;
    while (!seen.finallyRan) await turn();
    expect(seen.signal?.aborted).toBe(true);
  });

  it('served through node:http, fetchParts reads it end to end', async () => {
    const server = await startServer((_req, res) => {
      const response = partsResponse(
        (async function* () {
          yield text('over ');
          yield text('the wire');
        })(),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      void pipeline(Readable.fromWeb(response.body! as import('node:stream/web').ReadableStream), res);
    });
    servers.push(server);
    expect(await collect(fetchParts(server.url))).toEqual({ parts: [text('over '), text('the wire')] });
  });
});
