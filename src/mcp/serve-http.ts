import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpConfigError } from './errors.js';
import type { ServerSdk } from './sdk.js';

const MAX_BODY = 4 * 1024 * 1024;
const EVENTS_KEPT = 1000;
/** How long a client waits before reconnecting to a closed SSE stream (the `retry:` of each priming event). */
export const SSE_RETRY_MS = 1000;

/** A listening server: its URL over HTTP, and how to stop it. */
export type McpListening = {
  /** The endpoint, over HTTP. */
  url?: string;
  /** Stops serving: closes every session and, over HTTP, the listening socket. */
  close(): Promise<void>;
};

/** Where and how Streamable HTTP is served. */
export type McpHttpTransport = {
  port: number;
  host?: string;
  path?: string;
  /**
   * A bearer token every request must carry (`Authorization: Bearer <token>`); any other request gets
   * 401 before it reaches a session. Without it anyone who can reach the port can call the tools.
   */
  token?: string;
};

// A token goes into a header as it is: visible ASCII, no spaces.
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * Streamable HTTP at `http://host:port/path`: a session (an SDK server and transport) per client that
 * initializes, requests of a session routed to it. Bound to a loopback address, it refuses requests
 * whose Host or Origin is not local, so a web page cannot reach it through DNS rebinding; with a
 * token, it refuses requests without it, so another local process cannot either.
 */
export async function serveHttp(sdk: ServerSdk, makeServer: () => Server, at: McpHttpTransport): Promise<McpListening> {
  const host = at.host ?? '127.0.0.1';
  const path = at.path ?? '/mcp';
  if (!Number.isInteger(at.port) || at.port < 0 || at.port > 65535)
    throw new McpConfigError('serveMcp: port must be a whole number from 0 to 65535.');
  if (at.token !== undefined && (typeof at.token !== 'string' || !TOKEN.test(at.token)))
    throw new McpConfigError('serveMcp: token must be a non-empty string of visible ASCII characters, without spaces.');
  const expected = at.token === undefined ? undefined : digest(at.token);
  const loopback = isLoopback(host);
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return reply(res, 404, 'Not found');
    // A page on another site must not reach a local server through a name that resolves to 127.0.0.1.
    if (loopback && !(localName(req.headers.host) && (req.headers.origin === undefined || localOrigin(req.headers.origin))))
      return reply(res, 403, 'Forbidden: this server only answers requests addressed to localhost.');
    // Checked before any session is looked up, so a request without the token reaches nothing.
    if (expected !== undefined && !authorized(req.headers.authorization, expected))
      return reply(res, 401, 'Unauthorized: send the server’s token as "Authorization: Bearer <token>".', {
        'www-authenticate': 'Bearer realm="indusagi-mcp"',
      });
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(res, 404, 'Session not found: initialize again.');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'No session: send an initialize request first.');
    const body = await readBody(req);
    if (body === undefined) return reply(res, 400, 'The request body is not JSON.');
    if (!sdk.types.isInitializeRequest(body)) return reply(res, 400, 'No session: send an initialize request first.');
    const server = makeServer();
    const transport: StreamableHTTPServerTransport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: eventStore(),
      // The SSE priming event says when to come back: a client whose stream the server closed (polling,
      // SEP-1699) reconnects with Last-Event-ID after a second, not after its own default.
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('[indusagi] serving an MCP request failed:', error);
      if (!res.headersSent) reply(res, 500, 'Internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(at.port, host, () => resolve());
  });
  const address = http.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}${path}`,
    async close() {
      await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => {})));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Compares digests, of equal length whatever was sent, in constant time: the answer's timing says nothing about the token. */
function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  return timingSafeEqual(digest(match === null ? '' : match[1]), expected) && match !== null;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function localName(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  const hostname = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.split(':')[0];
  return ['localhost', '127.0.0.1', '[::1]'].includes(hostname.toLowerCase());
}

function localOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** What a client missed while its stream was down, replayed when it comes back (the last `EVENTS_KEPT` events of the session). */
function eventStore() {
  const events: Array<{ id: string; stream: string; message: JSONRPCMessage }> = [];
  return {
    async storeEvent(stream: string, message: JSONRPCMessage) {
      const id = `${stream}_${randomUUID()}`;
      events.push({ id, stream, message });
      if (events.length > EVENTS_KEPT) events.splice(0, events.length - EVENTS_KEPT);
      return id;
    },
    async getStreamIdForEventId(id: string) {
      return events.find((event) => event.id === id)?.stream;
    },
    async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }) {
      const at = events.findIndex((event) => event.id === lastEventId);
      if (at < 0) return '';
      const stream = events[at].stream;
      for (const event of events.slice(at + 1)) if (event.stream === stream) await send(event.id, event.message);
      return stream;
    },
  };
}
