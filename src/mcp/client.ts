import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '../runtime/contract/tool.js';
import { errorMessage } from '../errors/index.js';
import type {
  McpCallOptions,
  McpChange,
  McpClient,
  McpClientState,
  McpConnectOptions,
  McpPrompt,
  McpPromptResult,
  McpResource,
  McpResourceTemplate,
  McpServerInfo,
  McpToolResult,
} from './client-types.js';
import {
  checkServerConfig,
  DEFAULT_MAX_TOTAL_FACTOR,
  DEFAULT_TIMEOUT_MS,
  type McpHttpServer,
  type McpServerConfig,
  type McpToolInfo,
} from './config.js';
import { emptyInfo, isConnectionLoss, openConnection, shut, type Connection } from './connection.js';
import type { McpResourceContents } from './content.js';
import type { InFlightCall } from './elicitation.js';
import { McpClosedError, McpConfigError, McpRequestError, McpToolError } from './errors.js';
import { listAll } from './pages.js';
import {
  getServerPrompt,
  listServerPrompts,
  listServerResources,
  listServerResourceTemplates,
  readServerResource,
} from './resources-prompts.js';
import { loadClientSdk, type ClientSdk } from './sdk.js';
import { requestToolCall, runAgentCall, toolResult } from './tool-call.js';
import { acceptListing, toToolDefinition, type AcceptedTool, type McpRefusedTool, type McpToolDefinition } from './tools.js';
import type { TransportPlan } from './transports.js';

const STDERR_KEPT = 8 * 1024;

/**
 * Connects to one MCP server: spawns it (stdio) or reaches it (Streamable HTTP, falling back to SSE
 * for old servers), completes the handshake and lists its tools. Throws `McpConfigError` for a
 * description that cannot work, `McpConnectionError` when the server cannot be started, reached or
 * initialized, `McpToolCollisionError` when two of its tools would reach the model under one name, and
 * `McpSdkMissingError` without `@modelcontextprotocol/sdk`.
 */
export async function connectMcp(name: string, config: McpServerConfig, options: McpConnectOptions = {}): Promise<McpClient> {
  const server = checkServerConfig(name, config);
  checkOptions(options);
  const sdk = await loadClientSdk();
  const client = new McpConnection(sdk, name, server, options);
  await client.start();
  return client;
}

function checkOptions(options: McpConnectOptions): void {
  if (typeof options !== 'object' || options === null) throw new McpConfigError('connectMcp options must be an object.');
  if (options.onElicitation !== undefined && typeof options.onElicitation !== 'function')
    throw new McpConfigError('onElicitation must be a function.');
  const info = options.clientInfo;
  if (info !== undefined && (typeof info?.name !== 'string' || typeof info.version !== 'string'))
    throw new McpConfigError('clientInfo must be { name: string, version: string }.');
  const timeout = options.connectTimeoutMs;
  if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 1))
    throw new McpConfigError('connectTimeoutMs must be a whole number >= 1.');
}

class McpConnection implements McpClient {
  state: McpClientState = 'disconnected';
  server: McpServerInfo = emptyInfo();
  refused: readonly McpRefusedTool[] = [];
  private current: Connection | undefined;
  private reconnecting: Promise<Connection> | undefined;
  private accepted = new Map<string, AcceptedTool>();
  private definitions: readonly McpToolDefinition[] = [];
  private listing = '';
  private readonly listeners = new Set<(change: McpChange) => void>();
  private stderrTail = '';
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private readonly inFlight = new Map<number, InFlightCall>();
  private nextCall = 0;

  private readonly plan: TransportPlan;

  constructor(
    private readonly sdk: ClientSdk,
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly options: McpConnectOptions,
  ) {
    // A server's stderr is kept from its first byte, so one that dies while starting leaves its last words for the error.
    const onStderr = (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT));
    this.plan = { sdk, name, config, onStderr };
  }

  async start(): Promise<void> {
    this.current = await this.open();
    try {
      // At connect, a collision (within the server, or with `takenNames`) fails the connect; later listings refuse the tool instead.
      await this.loadTools(this.current, this.options.takenNames ?? new Map());
    } catch (error) {
      await this.close();
      throw error;
    }
    this.setState('connected');
  }

  tools(): readonly McpToolDefinition[] {
    return this.definitions;
  }

  stderr(): string {
    return this.stderrTail;
  }

  onChange(listener: (change: McpChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async refreshTools(): Promise<readonly McpToolDefinition[]> {
    await this.request('tools/list', (connection) => this.loadTools(connection));
    return this.definitions;
  }

  async callTool(name: string, args: Record<string, unknown> = {}, options: McpCallOptions = {}): Promise<McpToolResult> {
    return this.request('tools/call', (connection) => this.authorized(connection, (client) => this.call(client, name, args, options)));
  }

  listResources(): Promise<McpResource[]> {
    return this.requestAuthorized('resources/list', (client) => listServerResources(this.sdk, client, this.requestOptions()));
  }

  listResourceTemplates(): Promise<McpResourceTemplate[]> {
    return this.requestAuthorized('resources/templates/list', (client) =>
      listServerResourceTemplates(this.sdk, client, this.requestOptions()),
    );
  }

  readResource(uri: string): Promise<McpResourceContents[]> {
    if (typeof uri !== 'string' || uri === '') throw new McpConfigError('readResource needs a resource URI.');
    return this.requestAuthorized('resources/read', (client) => readServerResource(client, uri, this.requestOptions()));
  }

  listPrompts(): Promise<McpPrompt[]> {
    return this.requestAuthorized('prompts/list', (client) => listServerPrompts(this.sdk, client, this.requestOptions()));
  }

  getPrompt(name: string, args: Record<string, string> = {}): Promise<McpPromptResult> {
    if (typeof name !== 'string' || name === '') throw new McpConfigError('getPrompt needs a prompt name.');
    return this.requestAuthorized('prompts/get', (client) => getServerPrompt(client, name, args, this.requestOptions()));
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.setState('closed');
    const connection = this.current;
    this.current = undefined;
    if (connection !== undefined) await shut(connection);
  }

  /** Runs one of the agent's calls of `tool`: the model's text, or an `McpToolError` it reads as the error result. */
  readonly runTool = (tool: McpToolInfo, input: unknown, ctx: ToolContext): Promise<string> =>
    runAgentCall(this, (name) => this.accepted.has(name), tool, input, ctx);

  // One call of a tool, on a live connection; while it runs, the server's elicitations can name it.
  private async call(client: Client, name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpToolResult> {
    const id = this.nextCall++;
    this.inFlight.set(id, { tool: name, callId: options.callId, ask: options.ask });
    let raw: CallToolResult;
    try {
      const timeout = options.timeoutMs ?? this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const maxTotal = Math.max(timeout, this.config.maxTotalTimeoutMs ?? timeout * DEFAULT_MAX_TOTAL_FACTOR);
      raw = await requestToolCall(this.sdk, client, name, args, options, timeout, maxTotal);
    } finally {
      this.inFlight.delete(id);
    }
    return toolResult(this.name, name, raw, this.accepted.get(name), this.config);
  }

  // A request on a live connection, its failure typed: a lost connection is marked, so the next request connects again.
  private async request<T>(method: string, run: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = await this.connection().catch((error: unknown) => {
      if (McpClosedError.isInstance(error)) throw error;
      throw new McpRequestError(this.name, method, `could not connect: ${errorMessage(error)}`, { cause: error });
    });
    try {
      return await run(connection);
    } catch (error) {
      if (McpToolError.isInstance(error) || McpClosedError.isInstance(error)) throw error;
      if (isConnectionLoss(this.sdk, error)) this.lose(connection, error);
      throw new McpRequestError(this.name, method, errorMessage(error), { cause: error });
    }
  }

  private requestAuthorized<T>(method: string, run: (client: Client) => Promise<T>): Promise<T> {
    return this.request(method, (connection) => this.authorized(connection, run));
  }

  /**
   * Runs a request; when the server wants more than the tokens allow (a 401, or a 403 asking for a
   * wider scope), the auth provider sends the user to authorize again and the request is made once more
   * with the tokens the new code buys. The server refused the first attempt, so nothing ran twice.
   */
  private async authorized<T>(connection: Connection, run: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await run(connection.client);
    } catch (error) {
      const code = (this.config as McpHttpServer).authorizationCode;
      const transport = connection.transport as { finishAuth?: (code: string) => Promise<void> };
      if (!(error instanceof this.sdk.UnauthorizedError) || code === undefined || transport.finishAuth === undefined) throw error;
      await transport.finishAuth(await code());
      return run(connection.client);
    }
  }

  private requestOptions() {
    return { timeout: this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS };
  }

  // Lists the tools and makes them the client's; with `taken`, a collision with another server's throws.
  private async loadTools(connection: Connection, taken?: ReadonlyMap<string, string>): Promise<void> {
    if (!this.server.capabilities.tools) return;
    const listed = await this.authorized(connection, (client) => listAll(this.sdk, client, this.requestOptions(), 'tools/list', 'tools'));
    const { accepted, refused } = acceptListing(this.name, listed, this.config, taken);
    // A listing that found what the last one did changes nothing: the definitions stay the same objects,
    // and nobody is told (a catalog rebuilt for nothing would change a cached system prompt).
    const listing = JSON.stringify([accepted.map((tool) => tool.info), refused]);
    if (listing === this.listing) return;
    this.listing = listing;
    this.accepted = new Map(accepted.map((tool) => [tool.info.name, tool]));
    this.definitions = accepted.map((tool) => toToolDefinition(tool.info, this.config, this.runTool));
    this.refused = refused;
    this.emit({ kind: 'tools', tools: this.definitions, refused });
  }

  // A flood of `list_changed` costs one listing at a time: notifications that come during one ask for one more.
  private scheduleRefresh(connection: Connection): void {
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        if (connection.dead || this.state === 'closed') return;
        try {
          await this.loadTools(connection);
        } catch (error) {
          if (isConnectionLoss(this.sdk, error)) this.lose(connection, error);
          // The last good list stays; the state change says why it may be stale.
          this.emit({ kind: 'state', state: this.state, error: `listing tools after a change failed: ${errorMessage(error)}` });
          return;
        }
      } while (this.refreshAgain);
    })().finally(() => (this.refreshing = undefined));
  }

  private async connection(): Promise<Connection> {
    if (this.state === 'closed') throw new McpClosedError(this.name);
    const current = this.current;
    if (current !== undefined && !current.dead) return current;
    this.reconnecting ??= (async () => {
      this.setState('reconnecting');
      try {
        const connection = await this.open();
        if (this.state === 'closed') {
          await shut(connection);
          throw new McpClosedError(this.name);
        }
        this.current = connection;
        this.setState('connected');
        this.scheduleRefresh(connection);
        return connection;
      } catch (error) {
        if (this.state !== 'closed') this.setState('disconnected', errorMessage(error));
        throw error;
      } finally {
        this.reconnecting = undefined;
      }
    })();
    return this.reconnecting;
  }

  private async open(): Promise<Connection> {
    const { connection, server } = await openConnection(this.plan, this.options, {
      calls: () => [...this.inFlight.values()],
      toolsChanged: (connection) => this.scheduleRefresh(connection),
      closed: (connection) => this.lose(connection),
      stderr: () => this.stderrTail,
    });
    this.server = server;
    return connection;
  }

  private lose(connection: Connection, error?: unknown): void {
    if (connection.dead) return;
    connection.dead = true;
    if (this.current === connection) this.current = undefined;
    void shut(connection);
    if (this.state === 'connected')
      this.setState('disconnected', error === undefined ? 'the server closed the connection' : errorMessage(error));
  }

  private setState(state: McpClientState, error?: string): void {
    if (this.state === state && error === undefined) return;
    this.state = state;
    this.emit(error === undefined ? { kind: 'state', state } : { kind: 'state', state, error });
  }

  private emit(change: McpChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        console.error(`[indusagi] an MCP change listener of server "${this.name}" threw:`, error);
      }
    }
  }
}
