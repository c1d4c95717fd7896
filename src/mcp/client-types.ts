import type { ToolContext, ToolProgress } from '../runtime/contract/tool.js';
import type { Turn } from '../runtime/contract/turn.js';
import type { McpContent, McpResourceContents } from './content.js';
import type { McpRefusedTool, McpToolDefinition } from './tools.js';

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
  /**
   * How the agent asks its person for input during this call (`ToolContext.ask`): without an
   * `onElicitation` handler, a server's elicitation while the call runs is asked this way.
   */
  ask?: ToolContext['ask'];
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
