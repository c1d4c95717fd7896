import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';

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
