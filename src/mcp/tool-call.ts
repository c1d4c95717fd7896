import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext, ToolProgress } from '../runtime/contract/tool.js';
import { formatIssues } from '../schema/index.js';
import { callFailure, failureOf } from './call-failures.js';
import type { McpCallOptions, McpClient, McpToolResult } from './client-types.js';
import { DEFAULT_MAX_RESULT_CHARS, type McpServerConfig, type McpToolInfo } from './config.js';
import { fromMcpContent, resultText, truncateText } from './content.js';
import { McpToolError, type McpToolFailure } from './errors.js';
import type { ClientSdk } from './sdk.js';
import type { AcceptedTool } from './tools.js';

/** The `tools/call` request of one call on a live connection: its `_meta`, its progress, its cancellation. */
export async function requestToolCall(
  sdk: ClientSdk,
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: McpCallOptions,
  timeout: number,
  maxTotalTimeout: number,
): Promise<CallToolResult> {
  const params: { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> } = { name, arguments: args };
  if (options.meta !== undefined && Object.keys(options.meta).length > 0) params._meta = { ...options.meta };
  const onProgress = options.onProgress;
  // The SDK never removes the listener it adds to a request's signal, and one run's signal serves all
  // its calls: each call gets a signal of its own, tied to the run's only while the call lasts.
  const cancel = new AbortController();
  const forward = () => cancel.abort(options.signal?.reason);
  if (options.signal?.aborted) forward();
  else options.signal?.addEventListener('abort', forward, { once: true });
  // The cap on the call's whole time, however much progress comes. Not the SDK's `maxTotalTimeout`: that
  // one fails the call without telling the server, which goes on working; aborting sends
  // notifications/cancelled. The reason carries the SDK's timeout code, so the call fails as a timeout.
  const cap = setTimeout(
    () => cancel.abort(Object.assign(new Error(`the call took longer than its maximum of ${maxTotalTimeout} ms in all`), { code: -32001 })),
    maxTotalTimeout,
  );
  try {
    return (await client.request({ method: 'tools/call', params }, sdk.types.CallToolResultSchema, {
      signal: cancel.signal,
      timeout,
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
    clearTimeout(cap);
    options.signal?.removeEventListener('abort', forward);
  }
}

/**
 * A call's result as the client returns it: its content as blocks, its structured content checked
 * against the tool's output schema (`McpToolError` when it does not match), and the text the model reads.
 */
export function toolResult(
  server: string,
  name: string,
  raw: CallToolResult,
  accepted: AcceptedTool | undefined,
  config: McpServerConfig,
): McpToolResult {
  const content = (raw.content as ContentBlock[]).map(fromMcpContent);
  const structured = raw.structuredContent;
  const isError = raw.isError === true;
  if (!isError && accepted?.output !== undefined) {
    if (structured === undefined)
      throw new McpToolError(
        server,
        name,
        'output_schema',
        `The tool "${name}" declares an output schema but returned no structured content.`,
      );
    const issues = accepted.output(structured);
    if (issues.length > 0)
      throw new McpToolError(
        server,
        name,
        'output_schema',
        `The tool "${name}" returned structured content that does not match its output schema:\n${formatIssues(issues)}`,
      );
  }
  const { text, truncated } = truncateText(resultText(content, structured), config.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  const result: McpToolResult = { content, isError, text, truncated };
  if (structured !== undefined) result.structuredContent = structured;
  return result;
}

/**
 * Runs one of the agent's calls of `tool` through `client`: the model's text, or an `McpToolError` it
 * reads as the error result. `offers` says whether the client still offers a tool by its server's name.
 */
export async function runAgentCall(
  client: McpClient,
  offers: (name: string) => boolean,
  tool: McpToolInfo,
  input: unknown,
  ctx: ToolContext,
): Promise<string> {
  const fail = (reason: McpToolFailure, message: string, cause?: unknown): never => {
    throw new McpToolError(client.name, tool.name, reason, message, { cause });
  };
  if (client.state === 'closed') fail('closed', callFailure(client.name, tool.name, 'closed', undefined));
  if (!offers(tool.name)) fail('protocol', `The MCP server "${client.name}" no longer offers the tool "${tool.name}".`);
  let result: McpToolResult;
  try {
    result = await client.callTool(tool.name, input as Record<string, unknown>, {
      signal: ctx.signal,
      onProgress: ctx.progress,
      meta: ctx.traceContext,
      callId: ctx.callId,
      ask: ctx.ask,
    });
  } catch (error) {
    if (McpToolError.isInstance(error)) throw error;
    const failure = failureOf(error, ctx.signal);
    return fail(failure, callFailure(client.name, tool.name, failure, error), error);
  }
  if (result.isError) fail('tool_error', result.text || `The tool "${tool.name}" failed and said nothing more.`);
  return result.text;
}
