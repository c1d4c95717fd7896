import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';

/** How long an idle kept-alive connection stays open: longer than the idle timeouts of clients and load balancers. */
export const KEEP_ALIVE_MS = 75_000;

/** A server listening with Node's http. */
export type Listening = { url: string; port: number; close(): Promise<void> };

/**
 * Serves a fetch handler with Node's http through Hono's adapter (which streams response bodies with
 * back-pressure and aborts `request.signal` when the client goes). The global `Request`/`Response`
 * are left as they are. `close` drops open connections too: SSE streams would otherwise hold it open.
 */
export async function listen(
  fetch: (request: Request) => Promise<Response>,
  options: { port?: number; hostname?: string } = {},
): Promise<Listening> {
  const hostname = options.hostname ?? '127.0.0.1';
  const server = createAdaptorServer({ fetch: (request) => fetch(request), overrideGlobalObjects: false }) as Server;
  // An idle kept-alive connection is closed by the client, not by us: Node's 5 s default races a client
  // (or a load balancer, whose idle timeouts are commonly 60 s) that reuses the socket just as the server
  // closes it, and the request on it fails with "other side closed". The client's own limits are shorter.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Headers must be allowed to take longer than an idle connection lasts, or Node closes it first.
  server.headersTimeout = KEEP_ALIVE_MS + 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
