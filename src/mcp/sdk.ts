import { McpSdkMissingError } from './errors.js';

/** The parts of `@modelcontextprotocol/sdk` the client uses. */
export type ClientSdk = {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  getDefaultEnvironment: typeof import('@modelcontextprotocol/sdk/client/stdio.js').getDefaultEnvironment;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  SSEClientTransport: typeof import('@modelcontextprotocol/sdk/client/sse.js').SSEClientTransport;
  UnauthorizedError: typeof import('@modelcontextprotocol/sdk/client/auth.js').UnauthorizedError;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
};

/** The parts of `@modelcontextprotocol/sdk` `serveMcp` uses. */
export type ServerSdk = {
  Server: typeof import('@modelcontextprotocol/sdk/server/index.js').Server;
  StdioServerTransport: typeof import('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport;
  StreamableHTTPServerTransport: typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
  types: typeof import('@modelcontextprotocol/sdk/types.js');
};

let client: Promise<ClientSdk> | undefined;
let server: Promise<ServerSdk> | undefined;

/**
 * Loads the SDK's client half on first use. The SDK is imported here and only here, and only when a
 * client connects, so `indusagi/mcp` itself loads without it and every other entry never touches it.
 */
export function loadClientSdk(): Promise<ClientSdk> {
  client ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(
    ([index, stdio, http, sse, auth, types]) => ({
      Client: index.Client,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      SSEClientTransport: sse.SSEClientTransport,
      UnauthorizedError: auth.UnauthorizedError,
      types,
    }),
    missing,
  );
  return client;
}

/** Loads the SDK's server half on first use (see `loadClientSdk`). */
export function loadServerSdk(): Promise<ServerSdk> {
  server ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(
    ([index, stdio, http, types]) => ({
      Server: index.Server,
      StdioServerTransport: stdio.StdioServerTransport,
      StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
      types,
    }),
    missing,
  );
  return server;
}

// Only the SDK's own absence is reported as such; a module missing inside it is a broken install of
// another package, and its own error says which.
function missing(error: unknown): never {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : '';
  if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes("'@modelcontextprotocol/sdk")) {
    throw new McpSdkMissingError({ cause: error });
  }
  throw error;
}
