// The HTTP half every loopback model server shares: a server on 127.0.0.1 that records each request
// (parsed JSON body, headers, whether the client hung up early), answers it from a queue of scripts or
// a fallback responder, and lets a test wait for requests to arrive. The vendor half (what a script
// means on the wire) is the `answer` function each server passes in. A body that is not JSON or is
// over the size limit is answered with the vendor's 400 / 413 before any script is consumed.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type RecordedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON request body (undefined for an empty body). */
  body: any;
  /** True once the client closed the connection before the reply was complete (an abort). */
  clientClosedEarly: boolean;
  /** Bytes of the streamed reply written so far: how much a client read before it hung up. */
  bytesSent: number;
};

/** Computes the reply to a request when the queue is empty; `index` counts requests from 0. */
export type Responder<S> = (body: any, index: number) => S | Promise<S>;

export type LoopbackServer<S> = {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Queues replies, answered in order before `respond` is consulted. */
  enqueue(...scripts: S[]): void;
  /** Sets the fallback that answers once the queue is empty. */
  respond(responder: Responder<S>): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
};

export type LoopbackHandlers<S> = {
  /** Log prefix naming the server. */
  name: string;
  /** Whether this server answers the request at all (method and path); others get `notFound`. */
  routes(method: string, path: string): boolean;
  /** Writes a 404 for an unknown route, a 500 when no reply was scripted, in the vendor's error shape. */
  error(res: ServerResponse, status: number, message: string): void;
  /** Writes the scripted reply. */
  answer(res: ServerResponse, record: RecordedRequest, script: S): Promise<void>;
  /** Port on 127.0.0.1. Default 0: any free port. */
  port?: number;
};

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function startLoopbackServer<S>(handlers: LoopbackHandlers<S>): Promise<LoopbackServer<S>> {
  const requests: RecordedRequest[] = [];
  const queue: S[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();
  let responder: Responder<S> | undefined;

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      // A broken script is a bug in the test itself: answer 500 so the SDK surfaces it, and say why.
      console.error(`[${handlers.name}] script failed:`, error);
      if (!res.headersSent) handlers.error(res, 500, String(error));
      else res.end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    if (raw === null) return handlers.error(res, 413, `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch (error) {
      return handlers.error(res, 400, `The body is not JSON: ${(error as Error).message}`);
    }
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      clientClosedEarly: false,
      bytesSent: 0,
    };
    const index = requests.push(record) - 1;
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosedEarly = true;
    });
    if (!handlers.routes(record.method, record.path)) return handlers.error(res, 404, `No route for ${record.method} ${record.path}`);
    const script = queue.length > 0 ? queue.shift() : responder ? await responder(record.body, index) : undefined;
    if (script === undefined) return handlers.error(res, 500, `${handlers.name}: request #${index} arrived but no reply was scripted`);
    await handlers.answer(res, record, script);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(handlers.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...scripts) => void queue.push(...scripts),
    respond: (fn) => void (responder = fn),
    waitForRequests: (count) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/**
 * The body as text, or null when it passes the size limit. An oversized body is still drained (not
 * kept): stopping mid-read would reset the socket and the client would never see the 413.
 */
async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8');
}

/**
 * Cuts a stream short before frame `afterFrames`: with the vendor's error frame, a dropped connection,
 * or a frame that is not JSON; or stalls it there, the connection left open until the client hangs up,
 * sending nothing (`silence`), SSE comments (`comments`) or the vendor's keep-alive events (`pings`)
 * every `everyMs` (default 20); or floods it with one line of `bytes` bytes that never ends, written
 * only as fast as the client reads (so the server holds no more of it than the socket does).
 */
export type StreamCut =
  | { afterFrames: number; with: 'error' | 'drop' | 'garbage' }
  | { afterFrames: number; with: 'silence' | 'comments' | 'pings'; everyMs?: number }
  | { afterFrames: number; with: 'flood'; bytes: number };

/** What a vendor sends for a broken stream: its error frame, a frame that is not JSON, and its keep-alive event. */
export type BrokenFrames = { error: string; garbage: string; ping: (sequence: number) => string };

/**
 * Writes `frames` (already encoded) one by one, pausing `delayMs` between them, until the client hangs
 * up or `cut` ends or stalls the stream early; `broken` holds the vendor's own error, malformed and
 * keep-alive frames. Every byte written is counted in `record.bytesSent`.
 */
export async function writeFrames(
  res: ServerResponse,
  record: RecordedRequest,
  frames: readonly string[],
  options: { delayMs?: number; cut?: StreamCut; broken: BrokenFrames },
): Promise<void> {
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  const write = (text: string): boolean => {
    record.bytesSent += Buffer.byteLength(text);
    return res.write(text);
  };
  for (let i = 0; i < frames.length; i++) {
    if (record.clientClosedEarly || res.destroyed) return;
    const cut = options.cut;
    if (cut?.afterFrames === i) {
      if (cut.with === 'flood') await flood(res, closed, write, cut.bytes);
      else if (cut.with === 'silence' || cut.with === 'comments' || cut.with === 'pings')
        await stall(res, closed, write, cut.with, cut.everyMs ?? 20, options.broken.ping, i);
      else if (cut.with === 'drop') res.socket?.destroy();
      else res.end(options.broken[cut.with]);
      return;
    }
    if (i > 0 && options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    if (record.clientClosedEarly || res.destroyed) return;
    write(frames[i]);
  }
  res.end();
}

/** Keeps the stream open without content until the client hangs up. */
async function stall(
  res: ServerResponse,
  closed: Promise<void>,
  write: (text: string) => boolean,
  how: 'silence' | 'comments' | 'pings',
  everyMs: number,
  ping: (sequence: number) => string,
  sequence: number,
): Promise<void> {
  if (how === 'silence') return closed;
  let open = true;
  void closed.then(() => (open = false));
  while (open && !res.destroyed) {
    write(how === 'comments' ? ': keep-alive\n\n' : ping(sequence++));
    await Promise.race([closed, new Promise((r) => setTimeout(r, everyMs))]);
  }
}

/** One `data:` line of `bytes` bytes, in 64 KiB pieces, each written once the socket took the last. */
async function flood(res: ServerResponse, closed: Promise<void>, write: (text: string) => boolean, bytes: number): Promise<void> {
  const piece = 'x'.repeat(64 * 1024);
  let open = true;
  void closed.then(() => (open = false));
  let left = bytes;
  if (!write('data: {"text":"')) await Promise.race([closed, new Promise((r) => res.once('drain', r))]);
  while (open && !res.destroyed && left > 0) {
    const next = left >= piece.length ? piece : piece.slice(0, left);
    left -= next.length;
    if (!write(next)) await Promise.race([closed, new Promise((r) => res.once('drain', r))]);
  }
  if (open && !res.destroyed) res.end('"}\n\n');
}

/** Splits text into up to 3 roughly equal pieces, as a stream would deliver it. */
export function split(text: string): string[] {
  if (text.length < 3) return text.length === 0 ? [] : [text];
  const size = Math.ceil(text.length / 3);
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}
