import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ContentBlock, ElicitRequest, GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext, ToolProgress } from '../runtime/contract/tool.js';
import type { Turn } from '../runtime/contract/turn.js';
import { compileJsonSchema, formatIssues } from '../schema/index.js';
import { errorMessage } from '../errors/index.js';
import {
  checkServerConfig,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_TIMEOUT_MS,
  isStdio,
  type McpHttpServer,
  type McpServerConfig,
  type McpStdioServer,
  type McpToolInfo,
} from './config.js';
import {
  fromMcpContent,
  promptTurns,
  resourceContents,
  resultText,
  truncateText,
  type McpContent,
  type McpResourceContents,
} from './content.js';
import {
  McpClosedError,
  McpConfigError,
  McpConnectionError,
  McpElicitationInputError,
  McpElicitationUnavailableError,
  McpRequestError,
  McpToolError,
  type McpToolFailure,
} from './errors.js';
import { loadClientSdk, type ClientSdk } from './sdk.js';
import { PACKAGE_VERSION } from './version.js';
import { StdioTransport } from './stdio-transport.js';
import { acceptTools, checkCollisions, toToolDefinition, type AcceptedTool, type McpRefusedTool, type McpToolDefinition } from './tools.js';

/** What a server asks its user through elicitation (form mode): a message and the schema of the answer. */
export type McpElicitationRequest = {
  server: string;
  message: string;
  /** A flat object schema of strings, numbers, booleans and enums, as MCP allows for a form. */
  requestedSchema: object;
};

/** The person's answer: the form's content, a refusal (`decline`), or a dismissal (`cancel`). */
export type McpElicitationResult =
  { action: 'accept'; content: Record<string, string | number | boolean | string[]> } | { action: 'decline' } | { action: 'cancel' };

/** Where an elicitation comes from: the server, and its tool calls running when it asked (usually the one that asks). */
export type McpElicitationContext = {
  server: string;
  signal: AbortSignal;
  calls: ReadonlyArray<{ tool: string; callId: string | undefined }>;
};

export type McpElicitationHandler = (request: McpElicitationRequest, ctx: McpElicitationContext) => Promise<McpElicitationResult>;

/** Options of one connection, beside its server's description. */
export type McpConnectOptions = {
  /** How the client introduces itself. Default `{ name: 'indusagi', version: <this package's version> }`. */
  clientInfo?: { name: string; version: string };
  /**
   * Answers a server's requests for user input. Without one, every request is refused with
   * `McpElicitationUnavailableError` (a headless run cannot answer), which the server receives as the error.
   */
  onElicitation?: McpElicitationHandler;
  /** How long connecting (and the protocol's handshake) may take, in milliseconds. Default 30,000. */
  connectTimeoutMs?: number;
  /** Tool names other servers already use (original -> model name): a collision with them fails this connect. */
  takenNames?: ReadonlyMap<string, string>;
};

/** Where a client stands. `disconnected`: the server went away; the next request connects again. */
export type McpClientState = 'connected' | 'disconnected' | 'reconnecting' | 'closed';

/** What the server said about itself in the handshake. */
export type McpServerInfo = {
  name: string;
  version: string;
  title?: string;
  /** How to use the server, for the model's system prompt if you like. */
  instructions?: string;
  protocolVersion: string;
  capabilities: { tools: boolean; resources: boolean; prompts: boolean; logging: boolean; completions: boolean };
};

export type McpChange =
  | { kind: 'tools'; tools: readonly McpToolDefinition[]; refused: readonly McpRefusedTool[] }
  | { kind: 'state'; state: McpClientState; error?: string };

/** One call's options through `callTool`. */
export type McpCallOptions = {
  signal?: AbortSignal;
  /** Overrides the server's `timeoutMs` for this call. */
  timeoutMs?: number;
  onProgress?: (update: ToolProgress) => void;
  /** Sent as the request's `_meta` (W3C trace context, say). */
  meta?: Readonly<Record<string, string>>;
  /** The agent's id of the call, so an elicitation can be matched to it. */
  callId?: string;
};

/** A tool's result: its content as blocks, its structured content, and the text the model reads. */
export type McpToolResult = {
  content: McpContent[];
  /** Present when the tool returned structured content; checked against its `outputSchema` when it has one. */
  structuredContent?: Record<string, unknown>;
  /** The tool reported a failure: `text` says what. */
  isError: boolean;
  /** The result as the model reads it, cut to the server's `maxResultChars`. */
  text: string;
  /** True when `text` was cut. */
  truncated: boolean;
};

export type McpResource = { uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number };
export type McpResourceTemplate = { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string };
export type McpPrompt = {
  name: string;
  title?: string;
  description?: string;
  arguments: Array<{ name: string; description?: string; required: boolean }>;
};
export type McpPromptResult = { description?: string; messages: Turn[] };

/** A connection to one MCP server (see `connectMcp`). */
export interface McpClient {
  /** The server's name in your configuration: its tools are `name.tool`. */
  readonly name: string;
  readonly state: McpClientState;
  /** What the server said about itself when this client last connected. */
  readonly server: McpServerInfo;
  /** The server's tools as the agent's, as last listed (the list follows `notifications/tools/list_changed`). */
  tools(): readonly McpToolDefinition[];
  /** Tools the server listed that the client refused, and why. */
  readonly refused: readonly McpRefusedTool[];
  /** Lists the tools again now. */
  refreshTools(): Promise<readonly McpToolDefinition[]>;
  /** Calls a tool by its name on the server. A result with `isError` is returned, not thrown; a failed request throws `McpRequestError`. */
  callTool(name: string, args?: Record<string, unknown>, options?: McpCallOptions): Promise<McpToolResult>;
  listResources(): Promise<McpResource[]>;
  listResourceTemplates(): Promise<McpResourceTemplate[]>;
  readResource(uri: string): Promise<McpResourceContents[]>;
  listPrompts(): Promise<McpPrompt[]>;
  /** A prompt's messages as turns, ready to send (or to prepend to a conversation). */
  getPrompt(name: string, args?: Record<string, string>): Promise<McpPromptResult>;
  /** Calls `listener` when the tools change or the connection's state does; returns the unsubscribe. */
  onChange(listener: (change: McpChange) => void): () => void;
  /** The last 8 KiB the server wrote to stderr (a stdio server with `stderr: 'keep'`). */
  stderr(): string;
  /** Ends the connection and the server process it spawned. Calls in flight fail; later requests throw `McpClosedError`. */
  close(): Promise<void>;
}

const STDERR_KEPT = 8 * 1024;
const MAX_PAGES = 1000;

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
  private readonly listeners = new Set<(change: McpChange) => void>();
  private stderrTail = '';
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private readonly inFlight = new Map<number, { tool: string; callId: string | undefined }>();
  private nextCall = 0;

  constructor(
    private readonly sdk: ClientSdk,
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly options: McpConnectOptions,
  ) {}

  async start(): Promise<void> {
    this.current = await this.open();
    try {
      await this.loadTools(this.current, this.options.takenNames);
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
      (await this.pages(client, 'resources/list', 'resources')).map(
        (item) => pick(item, ['uri', 'name', 'title', 'description', 'mimeType', 'size']) as McpResource,
      ),
    );
  }

  listResourceTemplates(): Promise<McpResourceTemplate[]> {
    return this.requestAuthorized('resources/templates/list', async (client) =>
      (await this.pages(client, 'resources/templates/list', 'resourceTemplates')).map(
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
      (await this.pages(client, 'prompts/list', 'prompts')).map((item) => {
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
    this.inFlight.set(id, { tool: name, callId: options.callId });
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

  private async pages(client: Client, method: string, key: string): Promise<Array<Record<string, unknown>>> {
    const items: Array<Record<string, unknown>> = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      // The result is read item by item by the caller, so one malformed item cannot sink the list.
      const result = (await client.request(
        { method, params } as never,
        this.sdk.types.PaginatedResultSchema,
        this.requestOptions(),
      )) as Record<string, unknown>;
      const list = result[key];
      if (!Array.isArray(list)) throw new Error(`the ${method} result has no "${key}" array`);
      for (const item of list) if (typeof item === 'object' && item !== null) items.push(item as Record<string, unknown>);
      const next = result.nextCursor;
      if (typeof next !== 'string') return items;
      if (seen.has(next)) throw new Error(`the ${method} cursor ${JSON.stringify(next)} came back twice; the list would never end`);
      seen.add(next);
      cursor = next;
    }
    throw new Error(`${method} went on for more than ${MAX_PAGES} pages`);
  }

  // Lists the tools and makes them the client's; with `taken`, a collision with another server's throws.
  private async loadTools(connection: Connection, taken?: ReadonlyMap<string, string>): Promise<void> {
    if (!this.server.capabilities.tools) return;
    const listed = await this.authorized(connection, (client) => this.pages(client, 'tools/list', 'tools'));
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
    });
    const connection: Connection = { client, transport: undefined as unknown as Transport, dead: false };
    client.setRequestHandler(this.sdk.types.ElicitRequestSchema, (request, extra) => this.elicit(request, extra.signal));
    client.setNotificationHandler(this.sdk.types.ToolListChangedNotificationSchema, () => this.scheduleRefresh(connection));
    // A transport's errors (a line of garbage on stdout, a dropped stream) are not the connection's end;
    // the transport closing is, and `onclose` says so.
    client.onerror = () => {};
    client.onclose = () => this.lose(connection);
    const timeout = this.options.connectTimeoutMs ?? 30_000;
    try {
      connection.transport = await this.connectTransport(client, timeout);
    } catch (error) {
      connection.dead = true;
      await client.close().catch(() => {});
      throw new McpConnectionError(this.name, this.connectFailure(error), { cause: error });
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

  private async connectTransport(client: Client, timeout: number): Promise<Transport> {
    const config = this.config;
    if (isStdio(config)) {
      const transport = this.stdioTransport(config);
      await client.connect(transport, { timeout });
      return transport;
    }
    const http = config as McpHttpServer;
    const url = new URL(String(http.url));
    const mode = http.transport ?? 'auto';
    if (mode === 'sse') return this.connectSse(client, url, http, timeout);
    try {
      return await this.connectStreamable(client, url, http, timeout);
    } catch (error) {
      // Servers of the 2024-11-05 revision answer a POST to their URL with 4xx: they speak SSE.
      const status = (error as { code?: unknown }).code;
      if (mode === 'auto' && typeof status === 'number' && status >= 400 && status < 500 && status !== 401 && status !== 403) {
        await client.close().catch(() => {});
        return this.connectSse(client, url, http, timeout);
      }
      throw error;
    }
  }

  private async connectStreamable(client: Client, url: URL, http: McpHttpServer, timeout: number): Promise<Transport> {
    const make = () =>
      new this.sdk.StreamableHTTPClientTransport(url, {
        requestInit: http.headers === undefined ? undefined : { headers: { ...http.headers } },
        authProvider: http.authProvider,
        fetch: http.fetch,
      });
    let transport = make();
    try {
      await client.connect(transport, { timeout });
      return transport;
    } catch (error) {
      if (!(error instanceof this.sdk.UnauthorizedError) || http.authorizationCode === undefined) throw error;
      // The provider sent the user to authorize; the code they bring back buys the tokens, then the connection is made again.
      await transport.finishAuth(await http.authorizationCode());
      await client.close().catch(() => {});
      transport = make();
      await client.connect(transport, { timeout });
      return transport;
    }
  }

  private async connectSse(client: Client, url: URL, http: McpHttpServer, timeout: number): Promise<Transport> {
    const transport = new this.sdk.SSEClientTransport(url, {
      requestInit: http.headers === undefined ? undefined : { headers: { ...http.headers } },
      authProvider: http.authProvider,
      fetch: http.fetch,
    });
    await client.connect(transport, { timeout });
    return transport;
  }

  private stdioTransport(config: McpStdioServer): Transport {
    const keep = (config.stderr ?? 'keep') === 'keep';
    const { types, getDefaultEnvironment } = this.sdk;
    return new StdioTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: config.cwd,
      stderr: keep ? 'pipe' : (config.stderr as 'inherit' | 'ignore'),
      maxMessageBytes: config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      // Kept from the first byte, so a server that dies while starting leaves its last words for the error.
      onStderr: keep ? (chunk) => (this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_KEPT)) : undefined,
      parse: (line) => types.JSONRPCMessageSchema.parse(JSON.parse(line)),
    });
  }

  private connectFailure(error: unknown): string {
    const code = (error as { code?: unknown }).code;
    let detail: string;
    if (code === 'ENOENT' && isStdio(this.config)) detail = `could not start "${this.config.command}": no such command`;
    else if (code === 'EACCES' && isStdio(this.config)) detail = `could not start "${this.config.command}": permission denied`;
    else detail = `could not connect: ${errorMessage(error)}`;
    const said = this.stderrTail.trim();
    return said === '' ? detail : `${detail}. Its stderr ends with: ${said.slice(-1000)}`;
  }

  private async elicit(request: ElicitRequest, signal: AbortSignal) {
    const params = request.params as { message: string; requestedSchema?: object };
    const handler = this.options.onElicitation;
    if (handler === undefined) throw new McpElicitationUnavailableError(this.name);
    const requestedSchema = params.requestedSchema ?? { type: 'object', properties: {} };
    const answer = await handler(
      { server: this.name, message: params.message, requestedSchema },
      { server: this.name, signal, calls: [...this.inFlight.values()] },
    );
    if (typeof answer !== 'object' || answer === null || !['accept', 'decline', 'cancel'].includes(answer.action))
      throw new McpElicitationInputError(
        this.name,
        'the handler must return { action: "accept", content } or { action: "decline" | "cancel" }',
      );
    if (answer.action !== 'accept') return { action: answer.action };
    // A field the person left alone takes the schema's default (SEP-1034), before the answer is checked.
    const content = { ...defaultsOf(requestedSchema), ...answer.content };
    const issues = compileJsonSchema(requestedSchema, `MCP server "${this.name}" elicitation schema`)(content);
    if (issues.length > 0) throw new McpElicitationInputError(this.name, `\n${formatIssues(issues)}`);
    return { action: 'accept' as const, content };
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

function failureOf(error: unknown, signal: AbortSignal): McpToolFailure {
  if (signal.aborted) return 'aborted';
  const cause = McpRequestError.isInstance(error) ? error.cause : error;
  if (McpClosedError.isInstance(cause)) return 'closed';
  const code = (cause as { code?: unknown } | null)?.code;
  if (code === -32001) return 'timeout';
  if (code === -32000) return 'disconnected';
  if (typeof code === 'number' && code < 0) return 'protocol';
  if (cause instanceof Error && 'issues' in cause) return 'protocol';
  return 'disconnected';
}

function callFailure(server: string, tool: string, failure: McpToolFailure, error: unknown): string {
  switch (failure) {
    case 'aborted':
      return `The call to "${tool}" was cancelled.`;
    case 'closed':
      return `The MCP server "${server}" is not connected any more (its client was closed).`;
    case 'timeout':
      return `The MCP server "${server}" did not answer the call to "${tool}" in time; the call was cancelled.`;
    case 'disconnected':
      return `The MCP server "${server}" went away during the call to "${tool}" (${reasonOf(error)}); the next call connects again. The call may or may not have taken effect.`;
    default:
      return `The MCP server "${server}" refused the call to "${tool}": ${reasonOf(error)}`;
  }
}

function reasonOf(error: unknown): string {
  const cause = McpRequestError.isInstance(error) ? error.cause : error;
  return errorMessage(cause).replace(/^MCP error -?\d+: /, '');
}

function defaultsOf(schema: object): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) if (property?.default !== undefined) out[key] = property.default;
  return out;
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
