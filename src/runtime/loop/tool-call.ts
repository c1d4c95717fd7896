import type { ToolCallBlock, ToolResultBlock } from '../contract/turn.js';
import { ToolError } from '../../tools/tool-error.js';
import type { LoopTools } from './types.js';

/** What a call produced: the block for the model, and the raw value for events and parts. */
export type CallOutcome = { block: ToolResultBlock; result: unknown; isError: boolean };

export const INTERNAL_ERROR = 'Internal error';
export const ABORTED_RESULT = 'Aborted: the run was stopped before this tool call finished.';
export const INTERRUPTED_RESULT =
  'Interrupted: the run stopped (its process ended) while this tool call was running, so it may have run. Check its effect before calling it again.';

export function errorOutcome(call: ToolCallBlock, message: string): CallOutcome {
  return { block: { kind: 'tool_result', callId: call.id, content: message, isError: true }, result: message, isError: true };
}

/**
 * Why the call cannot run at all, or undefined when it can. The model sees the reason as an error
 * result and the run goes on, so it can correct itself.
 */
export function refusalOf(call: ToolCallBlock, tools: LoopTools): string | undefined {
  if (!tools.has(call.name)) return `Unknown tool "${call.name}".`;
  const input = call.input;
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) return undefined;
  // An invoker hands over the raw text when the model's input did not parse as JSON.
  const got = typeof input === 'string' ? `text that is not valid JSON: ${clip(input)}` : JSON.stringify(input) ?? String(input);
  return `Invalid input for tool "${call.name}": expected a JSON object, got ${got}`;
}

/** Runs one call. Never rejects: every failure becomes an error result. */
export async function executeCall(call: ToolCallBlock, tools: LoopTools, signal: AbortSignal): Promise<CallOutcome> {
  let value: unknown;
  try {
    value = await tools.execute(call.name, call.input, { signal, callId: call.id });
  } catch (error) {
    if (ToolError.isInstance(error)) return errorOutcome(call, error.message);
    console.error(`[indusagi] tool "${call.name}" (call ${call.id}) threw:`, error);
    return errorOutcome(call, INTERNAL_ERROR);
  }
  let content: string;
  try {
    content = toResultContent(value);
  } catch (error) {
    console.error(`[indusagi] tool "${call.name}" (call ${call.id}) returned a value that cannot be serialized:`, error);
    return errorOutcome(call, INTERNAL_ERROR);
  }
  return { block: { kind: 'tool_result', callId: call.id, content }, result: value, isError: false };
}

/** Strings go to the model as they are; anything else as JSON. */
function toResultContent(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? '';
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
