import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { errorMessage } from '../errors/index.js';
import { DEFAULT_MAX_MESSAGE_BYTES, isStdio, type McpHttpServer, type McpServerConfig, type McpStdioServer } from './config.js';
import type { ClientSdk } from './sdk.js';
import { StdioTransport } from './stdio-transport.js';

/** How to reach one server, and where its stderr goes. */
export type TransportPlan = { sdk: ClientSdk; name: string; config: McpServerConfig; onStderr: (chunk: Buffer) => void };

/**
 * Connects `client` to the server over its transport and completes the handshake: a spawned process
 * (stdio), or Streamable HTTP falling back to SSE when the server refuses it (`transport: 'auto'`). A
 * server that asks to authorize is sent its code (`authorizationCode`) and connected to again.
 */
export async function connectTransport(plan: TransportPlan, client: Client, timeout: number): Promise<Transport> {
  const config = plan.config;
  if (isStdio(config)) {
    const transport = stdioTransport(plan, config);
    await client.connect(transport, { timeout });
    return transport;
  }
  const http = config as McpHttpServer;
  const url = new URL(String(http.url));
  const mode = http.transport ?? 'auto';
  if (mode === 'sse') return connectSse(plan.sdk, client, url, http, timeout);
  try {
    return await connectStreamable(plan.sdk, client, url, http, timeout);
  } catch (error) {
    // Servers of the 2024-11-05 revision answer a POST to their URL with 4xx: they speak SSE.
    const status = (error as { code?: unknown }).code;
    if (mode === 'auto' && typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 403) {
      await client.close().catch(() => {});
      return connectSse(plan.sdk, client, url, http, timeout);
    }
    throw error;
  }
}

async function connectStreamable(sdk: ClientSdk, client: Client, url: URL, http: McpHttpServer, timeout: number): Promise<Transport> {
  const make = () =>
    new sdk.StreamableHTTPClientTransport(url, {
      requestInit: http.headers === undefined ? undefined : { headers: { ...http.headers } },
      authProvider: http.authProvider,
      fetch: http.fetch,
    });
  let transport = make();
  try {
    await client.connect(transport, { timeout });
    return transport;
  } catch (error) {
    if (!(error instanceof sdk.UnauthorizedError) || http.authorizationCode === undefined) throw error;
    // The provider sent the user to authorize; the code they bring back buys the tokens, then the connection is made again.
    await transport.finishAuth(await http.authorizationCode());
    await client.close().catch(() => {});
    transport = make();
    await client.connect(transport, { timeout });
    return transport;
  }
}

async function connectSse(sdk: ClientSdk, client: Client, url: URL, http: McpHttpServer, timeout: number): Promise<Transport> {
  const transport = new sdk.SSEClientTransport(url, {
    requestInit: http.headers === undefined ? undefined : { headers: { ...http.headers } },
    authProvider: http.authProvider,
    fetch: http.fetch,
  });
  await client.connect(transport, { timeout });
  return transport;
}

function stdioTransport(plan: TransportPlan, config: McpStdioServer): Transport {
  const keep = (config.stderr ?? 'keep') === 'keep';
  const { types, getDefaultEnvironment } = plan.sdk;
  return new StdioTransport({
    command: config.command,
    args: config.args ?? [],
    env: { ...getDefaultEnvironment(), ...config.env },
    cwd: config.cwd,
    stderr: keep ? 'pipe' : (config.stderr as 'inherit' | 'ignore'),
    maxMessageBytes: config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    // Kept from the first byte, so a server that dies while starting leaves its last words for the error.
    onStderr: keep ? plan.onStderr : undefined,
    parse: (line) => types.JSONRPCMessageSchema.parse(JSON.parse(line)),
  });
}

/** Why a connection failed, for people: a command that is not there, and what the server said on stderr before it died. */
export function connectFailure(config: McpServerConfig, error: unknown, stderr: string): string {
  const code = (error as { code?: unknown }).code;
  let detail: string;
  if (code === 'ENOENT' && isStdio(config)) detail = `could not start "${config.command}": no such command`;
  else if (code === 'EACCES' && isStdio(config)) detail = `could not start "${config.command}": permission denied`;
  else detail = `could not connect: ${errorMessage(error)}`;
  const said = stderr.trim();
  return said === '' ? detail : `${detail}. Its stderr ends with: ${said.slice(-1000)}`;
}
