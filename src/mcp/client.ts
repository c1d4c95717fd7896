import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ContentBlock, GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext, ToolProgress } from '../runtime/contract/tool.js';
import { formatIssues } from '../schema/index.js';
import { errorMessage } from '../errors/index.js';
import { callFailure, failureOf } from './call-failures.js';
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
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_TIMEOUT_MS,
  type McpHttpServer,
  type McpServerConfig,
  type McpToolInfo,
} from './config.js';
import { fromMcpContent, promptTurns, resourceContents, resultText, truncateText, type McpResourceContents } from './content.js';
import { answerElicitation, type InFlightCall } from './elicitation.js';
import { McpClosedError, McpConfigError, McpConnectionError, McpRequestError, McpToolError, type McpToolFailure } from './errors.js';
import { listAll } from './pages.js';
import { loadClientSdk, type ClientSdk } from './sdk.js';
import { schemaValidator } from './schema-validator.js';
import { acceptTools, checkCollisions, toToolDefinition, type AcceptedTool, type McpRefusedTool, type McpToolDefinition } from './tools.js';
import { connectFailure, connectTransport, type TransportPlan } from './transports.js';
import { PACKAGE_VERSION } from './version.js';

const STDERR_KEPT = 8 * 1024;

type Connection = { client: Client; transport: Transport; dead: boolean };

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
    return this.requestAuthorized('resources/list', async (client) =>
      (await listAll(this.sdk, client, this.requestOptions(), 'resources/list', 'resources')).map(
        (item) => pick(item, ['uri', 'name', 'title', 'description', 'mimeType', 'size']) as McpResource,
      ),
    );
  }

  listResourceTemplates(): Promise<McpResourceTemplate[]> {
    return this.requestAuthorized('resources/templates/list', async (client) =>
      (await listAll(this.sdk, client, this.requestOptions(), 'resources/templates/list', 'resourceTemplates')).map(
        (item) => pick(item, ['uriTemplate', 'name', 'title', 'description', 'mimeType']) as McpResourceTemplate,
      ),
    );
  }

  readResource(uri: string): Promise<McpResourceContents[]> {
    if (typeof uri !== 'string' || uri === '') throw new McpConfigError('readResource needs a resource URI.');
    return this.requestAuthorized('resources/read', async (client) =>
      resourceContents((await client.readResource({ uri }, this.requestOptions())).contents),
    );
  }

  listPrompts(): Promise<McpPrompt[]> {
    return this.requestAuthorized('prompts/list', async (client) =>
      (await listAll(this.sdk, client, this.requestOptions(), 'prompts/list', 'prompts')).map((item) => {
        const prompt = pick(item, ['name', 'title', 'description']) as McpPrompt;
        const args = Array.isArray(item.arguments) ? (item.arguments as Array<Record<string, unknown>>) : [];
        prompt.arguments = args.map((arg) => ({
          ...(pick(arg, ['name', 'description']) as { name: string }),
          required: arg.required === true,
        }));
        return prompt;
      }),
    );
  }

  getPrompt(name: string, args: Record<string, string> = {}): Promise<McpPromptResult> {
    if (typeof name !== 'string' || name === '') throw new McpConfigError('getPrompt needs a prompt name.');
    return this.requestAuthorized('prompts/get', async (client) => {
      const result: GetPromptResult = await client.getPrompt({ name, arguments: args }, this.requestOptions());
      const out: McpPromptResult = { messages: promptTurns(result.messages) };
      if (result.description !== undefined) out.description = result.description;
      return out;
    });
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.setState('closed');
    const connection = this.current;
    this.current = undefined;
    if (connection !== undefined) await shut(connection);
  }

  /** Runs one of the agent's calls of `tool`: the model's text, or an `McpToolError` it reads as the error result. */
  readonly runTool = async (tool: McpToolInfo, input: unknown, ctx: ToolContext): Promise<string> => {
    const fail = (reason: McpToolFailure, message: string, cause?: unknown): never => {
      throw new McpToolError(this.name, tool.name, reason, message, { cause });
    };
    if (this.state === 'closed') fail('closed', `The MCP server "${this.name}" is not connected any more (its client was closed).`);
    if (!this.accepted.has(tool.name)) fail('protocol', `The MCP server "${this.name}" no longer offers the tool "${tool.name}".`);
    let result: McpToolResult;
    try {
      result = await this.callTool(tool.name, input as Record<string, unknown>, {
        signal: ctx.signal,
        onProgress: ctx.progress,
        meta: ctx.traceContext,
        callId: ctx.callId,
        ask: ctx.ask,
      });
    } catch (error) {
      if (McpToolError.isInstance(error)) throw error;
      const failure = failureOf(error, ctx.signal);
      return fail(failure, callFailure(this.name, tool.name, failure, error), error);
    }
    if (result.isError) fail('tool_error', result.text || `The tool "${tool.name}" failed and said nothing more.`);
    return result.text;
  };

  // One call of a tool, on a live connection.
  private async call(client: Client, name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpToolResult> {
    const id = this.nextCall++;
    this.inFlight.set(id, { tool: name, callId: options.callId, ask: options.ask });
    const params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> } = { name, arguments: args };
    if (options.meta !== undefined && Object.keys(options.meta).length > 0) params._meta = { ...options.meta };
    const onProgress = options.onProgress;
    // The SDK never removes the listener it adds to a request's signal, and one run's signal serves all
    // its calls: each call gets a signal of its own, tied to the run's only while the call lasts.
    const cancel = new AbortController();
    const forward = () => cancel.abort(options.signal?.reason);
    if (options.signal?.aborted) forward();
    else options.signal?.addEventListener('abort', forward, { once: true });
    let raw: CallToolResult;
    try {
      raw = (await client.request({ method: 'tools/call', params }, this.sdk.types.CallToolResultSchema, {
        signal: cancel.signal,
        timeout: options.timeoutMs ?? this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress:
          onProgress === undefined
            ? undefined
            : (update) => {
                if (!Number.isFinite(update.progress)) return;
                const progress: ToolProgress = { progress: update.progress };
                if (typeof update.total === 'number' && Number.isFinite(update.total)) progress.total = update.total;
                if (typeof update.message === 'string') progress.message = update.message;
                onProgress(progress);
              },
      })) as CallToolResult;
    } finally {
      options.signal?.removeEventListener('abort', forward);
      this.inFlight.delete(id);
    }
    const content = (raw.content as ContentBlock[]).map(fromMcpContent);
    const structured = raw.structuredContent;
    const isError = raw.isError === true;
    const accepted = this.accepted.get(name);
    if (!isError && accepted?.output !== undefined) {
      if (structured === undefined)
        throw new McpToolError(
          this.name,
          name,
          'output_schema',
          `The tool "${name}" declares an output schema but returned no structured content.`,
        );
      const issues = accepted.output(structured);
      if (issues.length > 0)
        throw new McpToolError(
          this.name,
          name,
          'output_schema',
          `The tool "${name}" returned structured content that does not match its output schema:\n${formatIssues(issues)}`,
        );
    }
    const { text, truncated } = truncateText(resultText(content, structured), this.config.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
    const result: McpToolResult = { content, isError, text, truncated };
    if (structured !== undefined) result.structuredContent = structured;
    return result;
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
      if (this.isConnectionLoss(error)) this.lose(connection, error);
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
    const { accepted, refused } = acceptTools(this.name, listed, this.config);
    if (taken !== undefined) {
      checkCollisions(
        accepted.map((tool) => tool.info),
        new Map(taken),
      );
    } else {
      // A list that changed later cannot fail a connect that is over: a colliding tool is refused instead.
      const names = new Map<string, string>();
      for (let i = accepted.length - 1; i >= 0; i--) {
        try {
          checkCollisions([accepted[i].info], names);
        } catch (error) {
          refused.push({ server: this.name, name: accepted[i].info.name, reason: errorMessage(error) });
          accepted.splice(i, 1);
        }
      }
    }
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
          if (this.isConnectionLoss(error)) this.lose(connection, error);
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
    const { Client } = this.sdk;
    const client = new Client(this.options.clientInfo ?? { name: 'indusagi', version: PACKAGE_VERSION }, {
      capabilities: { elicitation: { form: { applyDefaults: true } } },
      jsonSchemaValidator: schemaValidator,
    });
    const connection: Connection = { client, transport: undefined as unknown as Transport, dead: false };
    client.setRequestHandler(this.sdk.types.ElicitRequestSchema, (request, extra) =>
      answerElicitation(this.options.onElicitation, this.name, request, extra.signal, [...this.inFlight.values()]),
    );
    client.setNotificationHandler(this.sdk.types.ToolListChangedNotificationSchema, () => this.scheduleRefresh(connection));
    // A transport's errors (a line of garbage on stdout, a dropped stream) are not the connection's end;
    // the transport closing is, and `onclose` says so.
    client.onerror = () => {};
    client.onclose = () => this.lose(connection);
    const timeout = this.options.connectTimeoutMs ?? 30_000;
    try {
      connection.transport = await connectTransport(this.plan, client, timeout);
    } catch (error) {
      connection.dead = true;
      await client.close().catch(() => {});
      throw new McpConnectionError(this.name, connectFailure(this.config, error, this.stderrTail), { cause: error });
    }
    const version = client.getServerVersion();
    const capabilities = client.getServerCapabilities() ?? {};
    this.server = {
      name: version?.name ?? this.name,
      version: version?.version ?? '',
      protocolVersion: (connection.transport as { protocolVersion?: string }).protocolVersion ?? this.sdk.types.LATEST_PROTOCOL_VERSION,
      capabilities: {
        tools: capabilities.tools !== undefined,
        resources: capabilities.resources !== undefined,
        prompts: capabilities.prompts !== undefined,
        logging: capabilities.logging !== undefined,
        completions: capabilities.completions !== undefined,
      },
    };
    if (version?.title !== undefined) this.server.title = version.title;
    const instructions = client.getInstructions();
    if (instructions !== undefined) this.server.instructions = instructions;
    return connection;
  }

  private isConnectionLoss(error: unknown): boolean {
    const { McpError, ErrorCode } = this.sdk.types;
    if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
    // Below the protocol: the process or the server is gone (fetch failed, a 404 for an expired session, "Not connected").
    return error instanceof Error && !(error instanceof McpToolError) && !('issues' in error);
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

async function shut(connection: Connection): Promise<void> {
  connection.dead = true;
  try {
    await connection.client.close();
  } catch {
    // Closing a connection that is already gone has nothing left to report.
  }
}

function pick(item: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (item[key] !== undefined) out[key] = item[key];
  return out;
}

function emptyInfo(): McpServerInfo {
  return {
    name: '',
    version: '',
    protocolVersion: '',
    capabilities: { tools: false, resources: false, prompts: false, logging: false, completions: false },
  };
}
