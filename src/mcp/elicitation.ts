import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { compileJsonSchema, formatIssues } from '../schema/index.js';
import type { McpElicitationHandler } from './client-types.js';
import { McpElicitationInputError, McpElicitationUnavailableError } from './errors.js';

/**
 * Answers a server's request for user input (form mode) with `handler`, or refuses it with
 * `McpElicitationUnavailableError` when there is none (a headless run). `calls` are the server's tool
 * calls in flight, so the handler can tell which one asks. The answer is checked against the schema
 * the server asked for, after the fields left alone take their defaults (SEP-1034).
 */
export async function answerElicitation(
  handler: McpElicitationHandler | undefined,
  server: string,
  request: ElicitRequest,
  signal: AbortSignal,
  calls: ReadonlyArray<{ tool: string; callId: string | undefined }>,
) {
  const params = request.params as { message: string; requestedSchema?: object };
  if (handler === undefined) throw new McpElicitationUnavailableError(server);
  const requestedSchema = params.requestedSchema ?? { type: 'object', properties: {} };
  const answer = await handler({ server, message: params.message, requestedSchema }, { server, signal, calls });
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
