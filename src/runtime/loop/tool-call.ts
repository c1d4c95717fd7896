import { toolResultContent, type ToolCallBlock, type ToolResultBlock } from '../contract/turn.js';
import { ToolError } from '../tools/tool-error.js';
import { errorMessage } from '../../errors/base.js';
import { WaitingCall, type ToolContext } from '../contract/tool.js';
import type { PendingApproval } from '../contract/events.js';
import { AgentDepthError, BudgetExceededError } from './errors.js';
import type { InputCheck, LoopTools } from './types.js';

/** What a call produced: the block for the model, and the raw value for events and parts. */
export type CallOutcome = { block: ToolResultBlock; result: unknown; isError: boolean };

/**
 * How a call that ran ended: with a result; waiting on approvals of its own (a resumable call's
 * `WaitingCall`, no result yet); or stopped by the run's budget (a sub-agent that met the limits of a
 * run above it) or by its tree's depth (an agent nested past `maxDepth`), which stops the run once the
 * rest of the batch has settled.
 */
export type CallEnd = CallOutcome | { waiting: readonly PendingApproval[] } | { stop: RunStop };

/** An error raised inside a call that stops the whole run rather than being the call's result. */
export type RunStop = BudgetExceededError | AgentDepthError;

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
  const got = typeof input === 'string' ? `text that is not valid JSON: ${clip(input)}` : (JSON.stringify(input) ?? String(input));
  return `Invalid input for tool "${call.name}": expected a JSON object, got ${got}`;
}

/** A call the loop may go on with, and the input it runs with; or why it cannot run. */
export type Admission = { input: unknown } | { refusal: string };

/**
 * Admits each call of a batch: `refusalOf`, then the tool's input check. Synchronous unless a schema
 * validates asynchronously. Never rejects: a check that throws refuses its call.
 */
export function admitCalls(calls: readonly ToolCallBlock[], tools: LoopTools): Admission[] | Promise<Admission[]> {
  let pending = false;
  const admissions: Array<Admission | Promise<Admission>> = new Array(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const admission = admitCall(calls[i], tools);
    if (admission instanceof Promise) pending = true;
    admissions[i] = admission;
  }
  return pending ? Promise.all(admissions) : (admissions as Admission[]);
}

function admitCall(call: ToolCallBlock, tools: LoopTools): Admission | Promise<Admission> {
  const refusal = refusalOf(call, tools);
  if (refusal !== undefined) return { refusal };
  let checked: InputCheck | Promise<InputCheck>;
  try {
    checked = tools.check(call.name, call.input);
  } catch (error) {
    return uncheckable(call, error);
  }
  return checked instanceof Promise ? checked.then(toAdmission, (error: unknown) => uncheckable(call, error)) : toAdmission(checked);
}

function toAdmission(checked: InputCheck): Admission {
  return checked.ok ? { input: checked.input } : { refusal: checked.message };
}

// A schema library that throws has a bug of its own; the call must still not run unchecked.
function uncheckable(call: ToolCallBlock, error: unknown): Admission {
  console.error(`[indusagi] checking the input of tool "${call.name}" (call ${call.id}) threw:`, error);
  return { refusal: `The input for tool "${call.name}" could not be checked (${errorMessage(error)}); the tool did not run.` };
}

/**
 * Runs one call with its admitted `input`. Never rejects: every failure becomes an error result, but a
 * `BudgetExceededError` (the run's limits met inside the call) stops the call instead, and a resumable
 * tool's `WaitingCall` leaves it waiting.
 */
export async function executeCall(call: ToolCallBlock, input: unknown, tools: LoopTools, ctx: ToolContext): Promise<CallEnd> {
  let value: unknown;
  try {
    value = await tools.execute(call.name, input, ctx);
  } catch (error) {
    if (BudgetExceededError.isInstance(error) || AgentDepthError.isInstance(error)) return { stop: error };
    if (ToolError.isInstance(error)) return errorOutcome(call, error.message);
    console.error(`[indusagi] tool "${call.name}" (call ${call.id}) threw:`, error);
    return errorOutcome(call, INTERNAL_ERROR);
  }
  if (value instanceof WaitingCall) {
    if (tools.resumable(call.name) !== undefined) return { waiting: value.pending };
    // Nothing would ever run the call again: waiting is for resumable tools only.
    console.error(`[indusagi] tool "${call.name}" (call ${call.id}) returned a WaitingCall but is not resumable`);
    return errorOutcome(call, INTERNAL_ERROR);
  }
  let content: string;
  try {
    content = toolResultContent(value);
  } catch (error) {
    console.error(`[indusagi] tool "${call.name}" (call ${call.id}) returned a value that cannot be serialized:`, error);
    return errorOutcome(call, INTERNAL_ERROR);
  }
  return { block: { kind: 'tool_result', callId: call.id, content }, result: value, isError: false };
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
