import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, ContentBlock, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Agent } from '../runtime/agent/types.js';
import type { PendingApproval, RunEvent, RunSnapshot } from '../runtime/contract/events.js';
import type {
  InputAnswer,
  InputQuestion,
  SampleRequest,
  SampleResult,
  ToolContext,
  ToolDefinition,
  ToolLogLevel,
  ToolProgress,
} from '../runtime/contract/tool.js';
import { toolResultContent } from '../runtime/contract/turn.js';
import { errorMessage, IndusagiError } from '../errors/index.js';
import type { CompiledSchema } from '../schema/index.js';
import { ToolError } from '../runtime/tools/tool-error.js';
import { checkToolInput, compileToolInput } from '../runtime/tools/tool-input.js';
import { sanitizeToolName } from '../runtime/tools/names.js';
import { DuplicateToolError } from '../runtime/tools/index.js';
import { toMcpContent, type McpContent } from './content.js';
import { McpClientCapabilityError, McpConfigError } from './errors.js';
import {
  featureCapabilities,
  installFeatures,
  logs,
  servedFeatures,
  type ServedFeatures,
  type ServedPrompt,
  type ServedResource,
  type ServedResourceTemplate,
  type SessionState,
} from './serve-features.js';
import { loadServerSdk } from './sdk.js';
import { serveHttp, type McpHttpTransport, type McpListening } from './serve-http.js';

export type { McpHttpTransport };
export type {
  ServedCompleter,
  ServedPrompt,
  ServedPromptMessage,
  ServedResource,
  ServedResourceContents,
  ServedResourceTemplate,
} from './serve-features.js';

/** A running server: its URL over HTTP, how to tell subscribers a resource changed, and how to stop it. */
export type McpServing = McpListening & {
  /**
   * Tells every client subscribed to `uri` (`resources/subscribe`) that it changed
   * (`notifications/resources/updated`); they read it again if they care.
   */
  resourceUpdated(uri: string): Promise<void>;
};
import { PACKAGE_VERSION } from './version.js';

/** An agent served as one tool, `ask_<name>`: each call is a run, in a new session or (with `sessionId`) an earlier one. */
export type ServedAgent = {
  /** Letters, digits, `_` and `-`: the tool is `ask_<name>`. */
  name: string;
  /** What the agent is good for, for the client's model. */
  description: string;
  /** Makes the agent a call runs on (closed after the call); give it a store for `sessionId` to continue conversations. */
  create: () => Agent | Promise<Agent>;
};

export type ServeMcpOptions = {
  /** How the server introduces itself. Default `indusagi` and this package's version. */
  name?: string;
  version?: string;
  /** How to use the server, for the client's model. */
  instructions?: string;
  /** Tools to serve. A tool that needs approval asks the client's user through elicitation, and is refused where the client cannot ask. */
  tools?: readonly ToolDefinition[];
  /** Agents to serve, each as an `ask_<name>` tool. */
  agents?: readonly ServedAgent[];
  /** Resources at fixed URIs (`resources/list`, `resources/read`); clients may subscribe to them. */
  resources?: readonly ServedResource[];
  /** Resources whose URIs follow a template (`resources/templates/list`), read with the URI's variables. */
  resourceTemplates?: readonly ServedResourceTemplate[];
  /** Prompt templates (`prompts/list`, `prompts/get`), their arguments completed by `complete`. */
  prompts?: readonly ServedPrompt[];
  /**
   * `'stdio'` (default): this process's stdin and stdout (or the streams given). `{ port }`: Streamable
   * HTTP at `http://host:port/path` (host default `127.0.0.1`, path default `/mcp`, port 0 picks a free one),
   * with `token`: only requests carrying `Authorization: Bearer <token>` are answered (401 otherwise).
   */
  transport?: 'stdio' | { stdin: Readable; stdout: Writable } | McpHttpTransport;
};

/** What a tool returns to be served as MCP content rather than as text (images, audio, resources, structured content). */
export type McpServedResult = {
  readonly content: readonly McpContent[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
};

const SERVED = Symbol('indusagi.mcpResult');

/**
 * A tool result that `serveMcp` sends as these MCP content blocks (an image, say) instead of as text.
 * An agent that runs the tool itself sends it to its model as JSON.
 */
export function mcpResult(result: McpServedResult): McpServedResult {
  return Object.freeze({ ...result, [SERVED]: true });
}

function isServedResult(value: unknown): value is McpServedResult {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SERVED] === true;
}

// MCP tool names: 1 to 128 of letters, digits, "_", "-" and "." (the 2025-11-25 revision's guidance).
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const AGENT_NAME = /^[A-Za-z0-9_-]{1,60}$/;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Served = {
  listed: { name: string; description: string; inputSchema: object; outputSchema?: object; annotations: Record<string, boolean> };
  run(args: unknown, extra: Extra, state: SessionState): Promise<CallToolResult>;
};

/**
 * Serves tools, and agents as tools, as an MCP server (protocol 2025-11-25), over stdio or Streamable
 * HTTP: Claude Desktop, Claude Code or another agent can then use them. Each call's input is checked
 * against the tool's schema first; a `ToolError` is the call's error result, and any other throw is
 * reported as `Internal error`. Progress a tool reports (`ctx.progress`) reaches the client when it
 * asked for it, and a client's cancellation aborts `ctx.signal`. Over HTTP, a server bound to a
 * loopback address refuses requests whose Host or Origin is not local (DNS rebinding), and a long
 * tool can close its call's stream (`ctx.closeStream`) to have a 2025-11-25 client poll for the rest.
 */
export async function serveMcp(options: ServeMcpOptions): Promise<McpServing> {
  if (typeof options !== 'object' || options === null)
    throw new McpConfigError('serveMcp needs { tools }, { agents }, { resources } or { prompts }.');
  const features: ServedFeatures = servedFeatures(options);
  const served = serveList(options, features);
  const sdk = await loadServerSdk();
  const info = { name: options.name ?? 'indusagi', version: options.version ?? PACKAGE_VERSION };
  // Every live session (one over stdio, one per client over HTTP): whom `resourceUpdated` tells.
  const sessions = new Set<SessionState>();
  const makeServer = (): Server => {
    const server = new sdk.Server(info, { capabilities: featureCapabilities(features), instructions: options.instructions });
    const state: SessionState = { server, subscribed: new Set() };
    sessions.add(state);
    server.onclose = () => sessions.delete(state);
    installFeatures(sdk, state, features);
    server.setRequestHandler(sdk.types.ListToolsRequestSchema, () => ({ tools: [...served.values()].map((tool) => tool.listed) }));
    server.setRequestHandler(sdk.types.CallToolRequestSchema, async (request, extra) => {
      const tool = served.get(request.params.name);
      if (tool === undefined) throw new sdk.types.McpError(sdk.types.ErrorCode.InvalidParams, `Unknown tool "${request.params.name}".`);
      return tool.run(request.params.arguments ?? {}, extra, state);
    });
    return server;
  };
  const resourceUpdated = async (uri: string): Promise<void> => {
    if (typeof uri !== 'string') throw new McpConfigError('serveMcp: resourceUpdated needs the URI of the resource that changed.');
    const told = [...sessions]
      .filter((state) => state.subscribed.has(uri))
      .map((state) => state.server.sendResourceUpdated({ uri }).catch(() => {}));
    await Promise.all(told);
  };
  const transport = options.transport ?? 'stdio';
  if (transport === 'stdio' || 'stdin' in transport) {
    const server = makeServer();
    const stdio = transport === 'stdio' ? new sdk.StdioServerTransport() : new sdk.StdioServerTransport(transport.stdin, transport.stdout);
    await server.connect(stdio);
    return { close: () => server.close(), resourceUpdated };
  }
  return { ...(await serveHttp(sdk, makeServer, transport)), resourceUpdated };
}

function serveList(options: ServeMcpOptions, features: ServedFeatures): Map<string, Served> {
  const served = new Map<string, Served>();
  const add = (name: string, tool: Served) => {
    if (served.has(name)) throw new DuplicateToolError(name);
    served.set(name, tool);
  };
  for (const definition of options.tools ?? []) {
    if (typeof definition?.name !== 'string' || typeof definition.execute !== 'function')
      throw new McpConfigError('serveMcp: every tool needs a name and an execute function.');
    const name = MCP_TOOL_NAME.test(definition.name) ? definition.name : sanitizeToolName(definition.name).slice(0, 128);
    add(name, servedTool(name, definition, compileToolInput(definition)));
  }
  for (const agent of options.agents ?? []) {
    if (
      typeof agent?.name !== 'string' ||
      !AGENT_NAME.test(agent.name) ||
      typeof agent.create !== 'function' ||
      typeof agent.description !== 'string'
    )
      throw new McpConfigError('serveMcp: an agent needs a name (letters, digits, "_", "-"), a description and create().');
    add(`ask_${agent.name}`, servedAgent(agent));
  }
  if (served.size === 0 && features.resources.length === 0 && features.templates.length === 0 && features.prompts.size === 0)
    throw new McpConfigError('serveMcp needs at least one tool, agent, resource or prompt to serve.');
  return served;
}

function servedTool(name: string, definition: ToolDefinition, input: CompiledSchema): Served {
  const annotations: Record<string, boolean> = { readOnlyHint: false, destructiveHint: definition.needsApproval === true };
  if (definition.idempotent === true) annotations.idempotentHint = true;
  return {
    listed: { name, description: definition.description, inputSchema: input.jsonSchema, annotations },
    async run(args, extra, state) {
      const { server } = state;
      const checked = await checkToolInput(name, input, args);
      if (!checked.ok) return errorResult(checked.error.message);
      if (definition.needsApproval === true) {
        const refusal = await askApproval(
          server,
          extra,
          `Allow the tool "${name}" to run with this input?\n${JSON.stringify(checked.input, null, 2)}`,
        );
        if (refusal !== undefined) return errorResult(refusal);
      }
      try {
        const ctx: ToolContext = {
          signal: extra.signal,
          callId: String(extra.requestId),
          progress: progressOf(extra),
          ask: (question) => ask(name, server, extra, question),
          log: (level, data) => log(name, state, extra, level, data),
          sample: (request) => sample(name, server, extra, request),
        };
        // The SDK offers it only where the client can resume a closed stream: Streamable HTTP with an
        // event store (serveHttp keeps one per session), a client at 2025-11-25 or later.
        const close = extra.closeSSEStream;
        if (close !== undefined) ctx.closeStream = () => close();
        const value = await definition.execute(checked.input, ctx);
        return resultOf(value);
      } catch (error) {
        if (ToolError.isInstance(error)) return errorResult(error.message);
        console.error(`[indusagi] served tool "${name}" threw:`, error);
        return errorResult('Internal error');
      }
    },
  };
}

const ASK_INPUT = {
  type: 'object',
  properties: {
    prompt: { type: 'string', description: 'What to ask the agent.' },
    sessionId: {
      type: 'string',
      description: 'Continue the conversation of an earlier answer (its sessionId); leave out to start a new one.',
    },
  },
  required: ['prompt'],
  additionalProperties: false,
} as const;

const ASK_OUTPUT = {
  type: 'object',
  properties: { answer: { type: 'string' }, sessionId: { type: 'string' } },
  required: ['answer', 'sessionId'],
} as const;

function servedAgent(spec: ServedAgent): Served {
  const name = `ask_${spec.name}`;
  const input = compileToolInput({ name, inputSchema: ASK_INPUT });
  return {
    listed: { name, description: spec.description, inputSchema: ASK_INPUT, outputSchema: ASK_OUTPUT, annotations: { readOnlyHint: false } },
    async run(args, extra, { server }) {
      const checked = await checkToolInput(name, input, args);
      if (!checked.ok) return errorResult(checked.error.message);
      const { prompt, sessionId } = checked.input as { prompt: string; sessionId?: string };
      let agent: Agent;
      try {
        agent = await spec.create();
      } catch (error) {
        console.error(`[indusagi] creating the served agent "${spec.name}" threw:`, error);
        return errorResult('Internal error');
      }
      const progress = progressOf(extra);
      let steps = 0;
      const unsubscribe = agent.subscribe((event: RunEvent) => {
        if (event.kind === 'tool_started') progress?.({ progress: ++steps, message: `calling ${event.name}` });
      });
      try {
        if (sessionId !== undefined) await agent.resume(sessionId);
        let snapshot: RunSnapshot = await agent.submit(prompt, { signal: extra.signal });
        // The agent's approvals are the client's user's to give: each waiting call is put to them.
        while (snapshot.status === 'waiting') snapshot = await decide(agent, snapshot.pendingApprovals, server, extra);
        const answer = snapshot.text;
        return { content: [{ type: 'text', text: answer }], structuredContent: { answer, sessionId: agent.sessionId } };
      } catch (error) {
        if (IndusagiError.isInstance(error)) return errorResult(error.message);
        console.error(`[indusagi] the served agent "${spec.name}" threw:`, error);
        return errorResult('Internal error');
      } finally {
        unsubscribe();
        await agent.close().catch((error: unknown) => console.error(`[indusagi] closing the served agent "${spec.name}" failed:`, error));
      }
    },
  };
}

async function decide(agent: Agent, pending: readonly PendingApproval[], server: Server, extra: Extra): Promise<RunSnapshot> {
  let snapshot: RunSnapshot | undefined;
  for (const call of pending) {
    const refusal = await askApproval(
      server,
      extra,
      `The agent wants to run the tool "${call.name}" with this input. Allow it?\n${JSON.stringify(call.input, null, 2)}`,
    );
    snapshot = refusal === undefined ? await agent.approve(call.approvalId) : await agent.reject(call.approvalId, refusal);
  }
  return snapshot!;
}

/** Asks the client's user through elicitation; undefined when they allowed it, else why not. */
async function askApproval(server: Server, extra: Extra, message: string): Promise<string | undefined> {
  if (server.getClientCapabilities()?.elicitation === undefined)
    return 'This tool call needs a person to approve it, and this client cannot ask one (it does not support elicitation).';
  const sdk = await loadServerSdk();
  try {
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message,
          requestedSchema: {
            type: 'object',
            properties: { allow: { type: 'boolean', title: 'Allow', description: 'Run this call.' } },
            required: ['allow'],
          },
        },
      },
      sdk.types.ElicitResultSchema,
    );
    if (answer.action === 'accept' && answer.content?.allow === true) return undefined;
    return 'The user did not approve this tool call.';
  } catch (error) {
    return `This tool call needs approval, and asking for it failed: ${errorMessage(error)}`;
  }
}

/** `ctx.ask` of a served tool: the question put to the client's user (`elicitation/create`), on the call's own stream. */
async function ask(tool: string, server: Server, extra: Extra, question: InputQuestion): Promise<InputAnswer> {
  if (typeof question?.message !== 'string' || typeof question.schema !== 'object' || question.schema === null)
    throw new ToolError(`The tool "${tool}" asked for input without a message and a schema.`);
  if (server.getClientCapabilities()?.elicitation === undefined) throw new McpClientCapabilityError(tool, 'elicitation');
  const sdk = await loadServerSdk();
  const answer = await extra.sendRequest(
    { method: 'elicitation/create', params: { message: question.message, requestedSchema: question.schema as never } },
    sdk.types.ElicitResultSchema,
    { signal: extra.signal },
  );
  if (answer.action === 'accept') return { action: 'accept', content: (answer.content ?? {}) as Record<string, unknown> };
  return { action: answer.action };
}

/** `ctx.log` of a served tool: `notifications/message` on the call's stream, unless below the session's level. */
function log(tool: string, state: SessionState, extra: Extra, level: ToolLogLevel, data: unknown): void {
  if (!logs(level, state.level)) return;
  void extra.sendNotification({ method: 'notifications/message', params: { level, logger: tool, data } }).catch(() => {});
}

/** `ctx.sample` of a served tool: the client's model asked through `sampling/createMessage`. */
async function sample(tool: string, server: Server, extra: Extra, request: SampleRequest): Promise<SampleResult> {
  if (!Array.isArray(request?.messages) || !Number.isInteger(request.maxTokens) || request.maxTokens < 1)
    throw new ToolError(`The tool "${tool}" asked for a completion without messages and a whole maxTokens of 1 or more.`);
  if (server.getClientCapabilities()?.sampling === undefined) throw new McpClientCapabilityError(tool, 'sampling');
  const sdk = await loadServerSdk();
  const params: Record<string, unknown> = {
    messages: request.messages.map((message) => ({ role: message.role, content: { type: 'text', text: message.text } })),
    maxTokens: request.maxTokens,
  };
  if (request.systemPrompt !== undefined) params.systemPrompt = request.systemPrompt;
  if (request.temperature !== undefined) params.temperature = request.temperature;
  const result = await extra.sendRequest(
    { method: 'sampling/createMessage', params: params as never },
    sdk.types.CreateMessageResultSchema,
    { signal: extra.signal },
  );
  const content = result.content as { type: string; text?: string };
  const answer: SampleResult = { text: content.type === 'text' ? (content.text ?? '') : '', model: result.model };
  if (result.stopReason !== undefined) answer.stopReason = result.stopReason;
  return answer;
}

function progressOf(extra: Extra): ((update: ToolProgress) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  return (update) => {
    if (typeof update?.progress !== 'number' || !Number.isFinite(update.progress)) return;
    const params: { progressToken: string | number; progress: number; total?: number; message?: string } = {
      progressToken: token,
      progress: update.progress,
    };
    if (typeof update.total === 'number' && Number.isFinite(update.total)) params.total = update.total;
    if (typeof update.message === 'string') params.message = update.message;
    void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
  };
}

function resultOf(value: unknown): CallToolResult {
  if (isServedResult(value)) {
    const result: CallToolResult = { content: value.content.map(toMcpContent) as ContentBlock[] };
    if (value.structuredContent !== undefined) result.structuredContent = value.structuredContent;
    if (value.isError === true) result.isError = true;
    return result;
  }
  return { content: [{ type: 'text', text: toolResultContent(value) }] };
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
