import type { Turn } from '../contract/turn.js';
import type { ModelReply, ModelRequest, ModelRetry } from '../contract/model.js';
import type { PendingApproval } from '../contract/events.js';
import { IndusagiError } from '../../errors/index.js';
import { errorMessage } from '../../errors/base.js';
import { AbortRace } from './abort.js';
import { openBatch } from './batch.js';
import { ContextWindowExceededError, MaxStepsError, ModelCallError, RunAbortedError } from './errors.js';
import { abortBatch, settleBatch } from './run-tools.js';
import type { LoopInput, LoopOutcome } from './types.js';
import { ModelView, withOriginalNames } from './wire-names.js';
import { turnProblem } from '../store/records.js';
import { applyControls } from './controls.js';

/**
 * The one model-and-tool loop, driven by the conductor (`createConductor`, behind `createAgent` and `runAgent`). It first settles the open batch
 * of tool calls, if the context ends inside one (resuming after approvals); then it calls the model,
 * appends the reply, runs the tools it asked for, appends their results, and repeats until a reply asks
 * for no tool (`settled`), calls wait for approval (`waiting`), or it throws: `MaxStepsError`,
 * `RunAbortedError`, `ModelCallError`, `ContextWindowExceededError` (a reply with stop reason
 * `model_context_window_exceeded`, offered to `recoverModelCall` first) or whatever a hook threw.
 * Whatever happens, `input.context` holds only complete turns and no unanswered call except those
 * waiting for a decision.
 */
export async function runLoop(input: LoopInput): Promise<LoopOutcome> {
  const abort = new AbortRace(input.signal);
  try {
    return await runSteps(input, abort);
  } finally {
    abort.dispose();
  }
}

async function runSteps(input: LoopInput, abort: AbortRace): Promise<LoopOutcome> {
  const { context, signal, emit, tools, hooks } = input;
  const view = new ModelView(tools.names);
  const onText = (delta: string) => emit({ kind: 'text_delta', delta });
  const onRetry = (retry: ModelRetry) => emit({ kind: 'model_retry', ...retry });
  let steps = 0;
  // True right after a reply: its tool calls may run without a decision unless their tool needs approval.
  let fresh = false;

  const checkpoint = async (): Promise<void> => {
    if (input.durability !== undefined) await input.durability.checkpoint();
  };
  const adopt = async (next: readonly Turn[]): Promise<void> => {
    if (next === context) return;
    const previous = context.slice();
    // Announced first, so a listener that cannot record the replacement stops it from taking effect.
    emit({ kind: 'context_replaced', previous, next });
    replaceContents(context, next);
    view.reset();
    await checkpoint();
  };
  const requestFor = (): ModelRequest => {
    const request: ModelRequest = {
      model: input.model,
      messages: view.of(context),
      tools: tools.specs,
      maxOutputTokens: input.maxOutputTokens,
      signal,
      onText,
      onRetry,
    };
    if (input.system !== undefined) request.system = input.system;
    if (input.volatileSystem !== undefined) request.volatileSystem = input.volatileSystem;
    if (input.providerOptions !== undefined) request.providerOptions = input.providerOptions;
    if (input.controls !== undefined) applyControls(request, input.controls, steps === 0, tools.names);
    if (input.responseFormat !== undefined) request.responseFormat = input.responseFormat;
    return request;
  };

  for (;;) {
    const batch = openBatch(context);
    if (signal.aborted) {
      if (batch.length > 0) abortBatch(batch, input);
      throw new RunAbortedError({ cause: signal.reason });
    }
    if (batch.length > 0) {
      const pending = await settleBatch(batch, input, fresh, abort);
      await checkpoint();
      emit({ kind: 'step', steps });
      if (pending.length > 0) {
        if (!signal.aborted) return { status: 'waiting', pending, steps };
        continue; // closes the batch as aborted above
      }
    } else if (fresh) {
      emit({ kind: 'step', steps });
      return { status: 'settled', pending: [], steps };
    }

    if (steps >= input.maxSteps) throw new MaxStepsError(input.maxSteps);
    if (hooks?.beforeModelCall) await adopt(await abort.race(Promise.resolve(hooks.beforeModelCall(context, signal))));
    let request = requestFor();
    let reply: ModelReply;
    try {
      reply = await callModel(input, request, abort);
    } catch (error) {
      const retry =
        signal.aborted || !hooks?.recoverModelCall
          ? undefined
          : await abort.race(Promise.resolve(hooks.recoverModelCall(error, context, signal)));
      if (retry === undefined || retry === context) throw error;
      await adopt(retry);
      request = requestFor();
      reply = await callModel(input, request, abort);
    }
    steps++;
    if (hooks?.afterModelCall) await abort.race(Promise.resolve(hooks.afterModelCall(reply, { context, request })));
    emit({ kind: 'reply', reply });
    const turn = withOriginalNames(reply.turn, tools.names);
    context.push(turn);
    emit({ kind: 'turn', turn });
    // The reply is durable before any of its tools starts: after a crash its calls count as possibly run.
    if (turn.blocks.some((block) => block.kind === 'tool_call')) await checkpoint();
    fresh = true;
  }
}

async function callModel(input: LoopInput, request: ModelRequest, abort: AbortRace): Promise<ModelReply> {
  let reply: ModelReply;
  try {
    reply = await abort.race(input.invoke(request));
  } catch (error) {
    if (input.signal.aborted) throw RunAbortedError.isInstance(error) ? error : new RunAbortedError({ cause: error });
    if (IndusagiError.isInstance(error)) throw error;
    throw new ModelCallError(`The model call failed: ${errorMessage(error)}`, { cause: error });
  }
  if (!reply || !reply.turn || !Array.isArray(reply.turn.blocks)) {
    throw new ModelCallError('The model invoker resolved without a reply turn.');
  }
  const problem = replyProblem(reply.turn);
  if (problem !== null) throw new ModelCallError(`The model's reply is malformed, so it was not kept: ${problem}.`);
  // A reply cut off by a full window is an overflow, not an answer: keeping it would store half a turn.
  if (reply.stopReason === 'model_context_window_exceeded') throw new ContextWindowExceededError(reply);
  return reply;
}

/**
 * Settles the open batch an earlier run left (approvals aside: their calls keep waiting) without
 * calling the model, so a new prompt can follow the results: a context must not ask the model anything
 * while a call of its last reply has no result. Returns the calls still waiting for a decision.
 */
export async function settleOpenBatch(input: LoopInput): Promise<PendingApproval[]> {
  const batch = openBatch(input.context);
  if (batch.length === 0) return [];
  const abort = new AbortRace(input.signal);
  try {
    const pending = await settleBatch(batch, input, false, abort);
    await input.durability?.checkpoint();
    return pending;
  } finally {
    abort.dispose();
  }
}

/**
 * Makes `context` hold the turns of `next`, in place. A loop rather than `splice(0, n, ...next)`:
 * spreading a long history as call arguments overflows the stack (from about 120,000 turns).
 */
export function replaceContents(context: Turn[], next: readonly Turn[]): void {
  if (next === context) return;
  context.length = 0;
  for (const turn of next) context.push(turn);
}

/**
 * Why a reply cannot join the context, or null. Beyond the shape every stored turn has, each tool call
 * needs an id and a name of its own: a result is paired with its call, and an approval with its call,
 * by that id alone, so a missing or repeated one would leave a call no result can answer, or let one
 * approval run two calls.
 */
function replyProblem(turn: Turn): string | null {
  if (turn.role !== 'assistant') return `its role is ${JSON.stringify(turn.role)}, not "assistant"`;
  const shape = turnProblem(turn);
  if (shape !== null) return shape;
  const ids = new Set<string>();
  for (const block of turn.blocks) {
    if (block.kind !== 'tool_call') continue;
    if (block.id === '') return 'a tool call has no id';
    if (block.name === '') return `tool call ${block.id} has no tool name`;
    if (ids.has(block.id)) return `two tool calls share the id ${block.id}`;
    ids.add(block.id);
  }
  return null;
}
