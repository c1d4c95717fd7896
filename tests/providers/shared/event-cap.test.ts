// The event cap as a stream transform: normal streams pass unchanged however the network splits them,
// an oversized line or event errors before any of it is handed on, and only event streams are capped.
import { describe, expect, it } from 'vitest';
import { capEvents, capResponse, cappedFetch, StreamEventTooLargeError, StreamLimitsError } from '../../../src/providers/shared/index.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (chunks: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks));

/** Pipes `chunks` through the cap; resolves with what came out, and the error that ended it, if one did. */
async function through(chunks: Uint8Array[], max: number): Promise<{ out: Uint8Array[]; error?: unknown }> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const reader = source.pipeThrough(capEvents(max)).getReader();
  const out: Uint8Array[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { out };
      out.push(value);
    }
  } catch (error) {
    return { out, error };
  }
}

/** `whole` cut at `points` (sorted offsets). */
function cut(whole: Uint8Array, points: number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const point of [...points, whole.length]) {
    chunks.push(whole.slice(at, point));
    at = point;
  }
  return chunks;
}

// Three events of 40-odd bytes each, ended by LF, CRLF and CR blank lines, one with two data lines.
const EVENTS =
  'event: a\ndata: {"type":"one","n":1}\n\n' +
  'event: b\r\ndata: {"type":"two"}\r\ndata: more\r\n\r\n' +
  ': a comment line\r\revent: c\rdata: {"type":"three"}\r\r';
const CAP = 48; // above each event, below any two together: a missed blank line would trip it

describe('capEvents', () => {
  it('hands on events under the cap unchanged, at every split point and every pair of them', async () => {
    const whole = bytes(EVENTS);
    const splits: number[][] = [[]];
    for (let a = 1; a < whole.length; a++) {
      splits.push([a]);
      for (let b = a + 1; b < whole.length; b += 7) splits.push([a, b]);
    }
    for (const points of splits) {
      const { out, error } = await through(cut(whole, points), CAP);
      expect(error).toBeUndefined();
      expect(text(out)).toBe(EVENTS);
    }
  });

  it('errors with StreamEventTooLargeError once a line passes the cap, handing on no byte past it', async () => {
    const line = `data: ${'x'.repeat(200)}`;
    const chunks = cut(bytes(`data: ok\n\n${line}\n\n`), [5, 20, 40, 60, 80, 100, 150]);

    const { out, error } = await through(chunks, 64);

    expect(StreamEventTooLargeError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'model_error', maxEventBytes: 64 });
    // The chunks up to the one that passed the cap (which ends at byte 80, 70 bytes into the line) and no more.
    expect(text(out)).toBe(`data: ok\n\n${line}`.slice(0, 60));
  });

  it('counts the lines of one event together: short data lines without a blank line trip it, the same lines as events do not', async () => {
    const line = 'data: 0123456789\n';

    const joined = await through([bytes(line.repeat(20))], 100);
    const apart = await through([bytes(`${line}\n`.repeat(20))], 100);

    expect(StreamEventTooLargeError.isInstance(joined.error)).toBe(true);
    expect(apart.error).toBeUndefined();
    expect(text(apart.out)).toBe(`${line}\n`.repeat(20));
  });
});

describe('capResponse and cappedFetch', () => {
  it('cap only event streams: a JSON body of one long line passes whole', async () => {
    const json = JSON.stringify({ data: 'x'.repeat(1000) });
    const stream = capResponse(new Response(`data: ${'x'.repeat(1000)}\n\n`, { headers: { 'content-type': 'text/event-stream' } }), 100);
    const plain = capResponse(new Response(json, { headers: { 'content-type': 'application/json' } }), 100);

    await expect(stream.text()).rejects.toSatisfy((error) => StreamEventTooLargeError.isInstance(error));
    expect(await plain.text()).toBe(json);
  });

  it('wraps the fetch it is given, keeping status and headers, and refuses a cap that cannot work', async () => {
    const fetched: string[] = [];
    const fetch = cappedFetch({
      maxEventBytes: 16,
      fetch: async (input) => {
        fetched.push(String(input));
        return new Response('data: 0123456789abcdef\n\n', { status: 201, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
      },
    });

    const response = await fetch('https://example.test/v1/responses');

    expect(fetched).toEqual(['https://example.test/v1/responses']);
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    await expect(response.text()).rejects.toThrow(/over 16 bytes \(maxEventBytes\)/);
    for (const maxEventBytes of [0, -1, 1.5, Number.NaN]) expect(() => cappedFetch({ maxEventBytes })).toThrow(StreamLimitsError);
  });
});
