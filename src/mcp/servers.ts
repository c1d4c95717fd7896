import { errorMessage } from '../errors/index.js';
import { connectMcp } from './client.js';
import type { McpChange, McpClient, McpClientState, McpConnectOptions } from './client-types.js';
import { checkServerConfig, isStdio, type McpServerConfig } from './config.js';
import { McpConfigError, McpToolCollisionError } from './errors.js';
import { checkCollisions, type McpRefusedTool, type McpToolDefinition } from './tools.js';

/** How `connectMcpServers` treats a server that cannot be connected. */
export type McpServersOptions = Omit<McpConnectOptions, 'takenNames'> & {
  /**
   * `'throw'` (default): one server failing fails the whole connect, and the others are closed.
   * `'report'`: the failed server is kept with state `failed` and its error in `status()`; the rest work.
   */
  onServerError?: 'throw' | 'report';
};

/** One server as `/mcp` shows it. */
export type McpServerStatus = {
  name: string;
  /** `failed`: it could not be connected at all (with `onServerError: 'report'`). */
  state: McpClientState | 'failed';
  transport: 'stdio' | 'http';
  tools: number;
  refused: readonly McpRefusedTool[];
  /** Why it failed or went away, when it did. */
  error?: string;
};

/** Several servers as one set of tools (see `connectMcpServers`). */
export interface McpServers {
  /** The connected servers by name (a failed one is not here; see `status()`). */
  readonly clients: ReadonlyMap<string, McpClient>;
  /** Every server's tools, server by server in configuration order, as last listed. */
  tools(): McpToolDefinition[];
  /** Each configured server: its state, tool count, refused tools and last error. */
  status(): McpServerStatus[];
  /** Called with the server's name whenever one's tools or state change. */
  onChange(listener: (server: string, change: McpChange) => void): () => void;
  /** Closes every server (and ends every process they spawned). */
  close(): Promise<void>;
}

/**
 * Connects to every server at once, each as `connectMcp` does, and checks that no two of their tools
 * reach the model under one name (`McpToolCollisionError` otherwise, naming both).
 */
export async function connectMcpServers(
  servers: Readonly<Record<string, McpServerConfig>>,
  options: McpServersOptions = {},
): Promise<McpServers> {
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new McpConfigError('connectMcpServers takes an object of server name -> { command } or { url }.');
  const onServerError = options.onServerError ?? 'throw';
  if (onServerError !== 'throw' && onServerError !== 'report') throw new McpConfigError('onServerError must be "throw" or "report".');
  const entries = Object.entries(servers);
  for (const [name, config] of entries) checkServerConfig(name, config);
  const { onServerError: _, ...connect } = options;

  const settled = await Promise.allSettled(entries.map(([name, config]) => connectMcp(name, config, connect)));
  const clients = new Map<string, McpClient>();
  const failed = new Map<string, string>();
  settled.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') clients.set(entries[i][0], outcome.value);
    else failed.set(entries[i][0], errorMessage(outcome.reason));
  });
  const closeAll = () => Promise.all([...clients.values()].map((client) => client.close())).then(() => undefined);
  const firstFailure = settled.find((outcome) => outcome.status === 'rejected');
  if (firstFailure !== undefined && onServerError === 'throw') {
    await closeAll();
    throw firstFailure.reason;
  }
  try {
    const taken = new Map<string, string>();
    for (const client of clients.values())
      checkCollisions(
        client.tools().map((tool) => tool.mcp),
        taken,
      );
  } catch (error) {
    await closeAll();
    throw error;
  }

  const lastError = new Map<string, string>();
  const listeners = new Set<(server: string, change: McpChange) => void>();
  for (const [name, client] of clients) {
    client.onChange((change) => {
      if (change.kind === 'state' && change.error !== undefined) lastError.set(name, change.error);
      for (const listener of [...listeners]) listener(name, change);
    });
  }

  return {
    clients,
    tools() {
      const all: McpToolDefinition[] = [];
      const taken = new Map<string, string>();
      for (const client of clients.values()) {
        for (const tool of client.tools()) {
          // A tool a server added later may collide with another server's: the first one listed keeps the name.
          try {
            checkCollisions([tool.mcp], taken);
            all.push(tool);
          } catch (error) {
            if (!McpToolCollisionError.isInstance(error)) throw error;
          }
        }
      }
      return all;
    },
    status() {
      return entries.map(([name, config]) => {
        const client = clients.get(name);
        const status: McpServerStatus = {
          name,
          state: client?.state ?? 'failed',
          transport: isStdio(config) ? 'stdio' : 'http',
          tools: client?.tools().length ?? 0,
          refused: client?.refused ?? [],
        };
        const error = failed.get(name) ?? (client?.state === 'connected' ? undefined : lastError.get(name));
        if (error !== undefined) status.error = error;
        return status;
      });
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: closeAll,
  };
}
