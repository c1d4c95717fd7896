import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { compileJsonSchema, formatIssues } from '../schema/index.js';
import type { ToolContext } from '../runtime/contract/tool.js';
import type { McpElicitationHandler, McpElicitationResult } from './client-types.js';

/** A tool call of this client in flight: its tool, the agent's id for it, and how the agent asks its person. */
export type InFlightCall = { tool: string; callId: string | undefined; ask?: ToolContext['ask'] };
import { McpElicitationInputError, McpElicitationUnavailableError } from './errors.js';

/**
 * Answers a server's request for user input (form mode) with `handler`; without one, through the agent
 * running the call (its `ToolContext.ask`: the person answers with `agent.answer`, and a headless run
 * refuses with `InputUnavailableError`); with neither, refuses with `McpElicitationUnavailableError`.
 * `calls` are the server's tool calls in flight, so the handler can tell which one asks. The answer is
 * checked against the schema the server asked for, after the fields left alone take their defaults (SEP-1034).
 */
export async function answerElicitation(
  handler: McpElicitationHandler | undefined,
  server: string,
  request: ElicitRequest,
  signal: AbortSignal,
  calls: readonly InFlightCall[],
) {
  const params = request.params as { message: string; requestedSchema?: object };
  const requestedSchema = params.requestedSchema ?? { type: 'object', properties: {} };
  let answer: McpElicitationResult;
  if (handler !== undefined) {
    answer = await handler(
      { server, message: params.message, requestedSchema },
      { server, signal, calls: calls.map(({ tool, callId }) => ({ tool, callId })) },
    );
  } else {
    // The agent's call that is running asks its person; more than one in flight: the oldest asks.
    const ask = calls.find((call) => call.ask !== undefined)?.ask;
    if (ask === undefined) throw new McpElicitationUnavailableError(server);
    // The content is checked against the server's schema below, as a handler's is.
    answer = (await ask({ message: params.message, schema: requestedSchema, from: server })) as McpElicitationResult;
  }
  if (typeof answer !== 'object' || answer === null || !['accept', 'decline', 'cancel'].includes(answer.action))
    throw new McpElicitationInputError(server, 'the handler must return { action: "accept", content } or { action: "decline" | "cancel" }');
  if (answer.action !== 'accept') return { action: answer.action };
  const content = { ...defaultsOf(requestedSchema), ...answer.content };
  const issues = compileJsonSchema(requestedSchema, `MCP server "${server}" elicitation schema`)(content);
  if (issues.length > 0) throw new McpElicitationInputError(server, `\n${formatIssues(issues)}`);
  return { action: 'accept' as const, content };
}

function defaultsOf(schema: object): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) if (property?.default !== undefined) out[key] = property.default;
  return out;
}
