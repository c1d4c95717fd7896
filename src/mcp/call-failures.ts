import { errorMessage } from '../errors/index.js';
import { McpClosedError, McpRequestError, type McpToolFailure } from './errors.js';

/** Why a tool call failed, read from what the request threw: the run's abort first, then the SDK's error codes. */
export function failureOf(error: unknown, signal: AbortSignal): McpToolFailure {
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

export function callFailure(server: string, tool: string, failure: McpToolFailure, error: unknown): string {
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
