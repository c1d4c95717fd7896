import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DemoRequestError } from './errors.js';
import { respond } from './responder.js';
import { encodeFrame, replyEvents, replyMessage } from './wire.js';

export type DemoModelOptions = {
  /** Pause after each streamed delta so streaming is visible in a terminal. Default 15 ms; 0 streams flat out. */
  chunkDelayMs?: number;
  /** Port on 127.0.0.1. Default 0: any free port. */
  port?: number;
};

/** A running demo model. Point `new Anthropic({ baseURL, apiKey: 'offline-demo' })` at `baseURL`. */
export type DemoModel = {
  baseURL: string;
  close(): Promise<void>;
};

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Starts the offline demo model: an Anthropic-compatible Messages endpoint (`POST /v1/messages`,
 * streamed or not) on the loopback interface only, answering with the scripted responder.
 */
export async function startDemoModel(options: DemoModelOptions = {}): Promise<DemoModel> {
  const chunkDelayMs = options.chunkDelayMs ?? 15;
  const server = createServer((req, res) => {
    handle(req, res, chunkDelayMs).catch((error: unknown) => {
      // Only a failure after the stream began reaches here; the client sees the stream cut short.
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets from the SDK would otherwise hold `close` open until they time out.
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, chunkDelayMs: number): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path !== '/v1/messages') return sendError(res, 404, 'not_found_error', `No route ${req.method} ${path}; the demo model serves POST /v1/messages.`);
  if (req.method !== 'POST') return sendError(res, 405, 'invalid_request_error', `${req.method} is not allowed on /v1/messages; use POST.`);

  const raw = await readBody(req);
  if (raw === null) return sendError(res, 413, 'request_too_large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  let body: unknown;
  let reply;
  try {
    body = JSON.parse(raw);
    reply = respond(body);
  } catch (error) {
    if (error instanceof SyntaxError) return sendError(res, 400, 'invalid_request_error', `The body is not JSON: ${error.message}`);
    if (DemoRequestError.isInstance(error)) return sendError(res, 400, 'invalid_request_error', error.message);
    throw error;
  }
  if ((body as { stream?: unknown }).stream !== true) return sendJson(res, 200, replyMessage(reply));

  const stop = new AbortController();
  res.on('close', () => stop.abort());
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': reply.id });
  for (const event of replyEvents(reply)) {
    if (stop.signal.aborted) return;
    res.write(encodeFrame(event));
    if (event.event === 'content_block_delta' && chunkDelayMs > 0) {
      // A client that hangs up mid-stream (an aborted run) ends the loop instead of an error.
      await sleep(chunkDelayMs, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  }
  res.end();
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

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
