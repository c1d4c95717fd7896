import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpConnectOptions, McpServerInfo } from './client-types.js';
import { answerElicitation, type InFlightCall } from './elicitation.js';
import { McpConnectionError, McpToolError } from './errors.js';
import { schemaValidator } from './schema-validator.js';
import type { ClientSdk } from './sdk.js';
import { connectFailure, connectTransport, type TransportPlan } from './transports.js';
import { PACKAGE_VERSION } from './version.js';

/** One connection to the server; `dead` once it closed or was lost, so the next request opens another. */
export type Connection = { client: Client; transport: Transport; dead: boolean };

/** What a connection needs of the client that opens it while it lives. */
export type ConnectionHooks = {
  /** The client's tool calls in flight, for the server's elicitations to name. */
  calls(): readonly InFlightCall[];
  /** The server said its list of tools changed. */
  toolsChanged(connection: Connection): void;
  /** The transport closed: the connection is over. */
  closed(connection: Connection): void;
  /** What the server wrote to stderr so far, for the error when it cannot be reached. */
  stderr(): string;
};

/**
 * Opens a connection over `plan`'s transport, answers the handshake and reads what the server said
 * about itself. A server that cannot be started, reached or initialized is `McpConnectionError`.
 */
export async function openConnection(
  plan: TransportPlan,
  options: McpConnectOptions,
  hooks: ConnectionHooks,
): Promise<{ connection: Connection; server: McpServerInfo }> {
  const { sdk, name, config } = plan;
  const { Client } = sdk;
  const client = new Client(options.clientInfo ?? { name: 'indusagi', version: PACKAGE_VERSION }, {
    capabilities: { elicitation: { form: { applyDefaults: true } } },
    jsonSchemaValidator: schemaValidator,
  });
  const connection: Connection = { client, transport: undefined as unknown as Transport, dead: false };
  client.setRequestHandler(sdk.types.ElicitRequestSchema, (request, extra) =>
    answerElicitation(options.onElicitation, name, request, extra.signal, [...hooks.calls()]),
  );
  client.setNotificationHandler(sdk.types.ToolListChangedNotificationSchema, () => hooks.toolsChanged(connection));
  // A transport's errors (a line of garbage on stdout, a dropped stream) are not the connection's end;
  // the transport closing is, and `onclose` says so.
  client.onerror = () => {};
  client.onclose = () => hooks.closed(connection);
  const timeout = options.connectTimeoutMs ?? 30_000;
  try {
    connection.transport = await connectTransport(plan, client, timeout);
  } catch (error) {
    connection.dead = true;
    await client.close().catch(() => {});
    throw new McpConnectionError(name, connectFailure(config, error, hooks.stderr()), { cause: error });
  }
  const version = client.getServerVersion();
  const capabilities = client.getServerCapabilities() ?? {};
  const server: McpServerInfo = {
    name: version?.name ?? name,
    version: version?.version ?? '',
    protocolVersion: (connection.transport as { protocolVersion?: string }).protocolVersion ?? sdk.types.LATEST_PROTOCOL_VERSION,
    capabilities: {
      tools: capabilities.tools !== undefined,
      resources: capabilities.resources !== undefined,
      prompts: capabilities.prompts !== undefined,
      logging: capabilities.logging !== undefined,
      completions: capabilities.completions !== undefined,
    },
  };
  if (version?.title !== undefined) server.title = version.title;
  const instructions = client.getInstructions();
  if (instructions !== undefined) server.instructions = instructions;
  return { connection, server };
}

/** Whether a request's failure means the connection is gone (rather than the server refusing the request). */
export function isConnectionLoss(sdk: ClientSdk, error: unknown): boolean {
  const { McpError, ErrorCode } = sdk.types;
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  // Below the protocol: the process or the server is gone (fetch failed, a 404 for an expired session, "Not connected").
  return error instanceof Error && !(error instanceof McpToolError) && !('issues' in error);
}

export async function shut(connection: Connection): Promise<void> {
  connection.dead = true;
  try {
    await connection.client.close();
  } catch {
    // Closing a connection that is already gone has nothing left to report.
  }
}

/** A client's server before its first handshake. */
export function emptyInfo(): McpServerInfo {
  return {
    name: '',
    version: '',
    protocolVersion: '',
    capabilities: { tools: false, resources: false, prompts: false, logging: false, completions: false },
  };
}
