import type { Turn } from '../contract/turn.js';
import type { ModelReply, ModelRequest, ModelRetry } from '../contract/model.js';
import type { Compaction, StepInput, StepOverrides } from '../contract/step.js';
import type { RunControls } from './controls.js';
import type { PendingApproval } from '../contract/events.js';
import { IndusagiError } from '../../errors/index.js';
import { errorMessage } from '../../errors/base.js';
import { AbortRace } from './abort.js';
import { openBatch } from './batch.js';
import { ContextWindowExceededError, MaxStepsError, ModelCallError, RunAbortedError } from './errors.js';
import { abortBatch, settleBatch } from './run-tools.js';
import type { LoopInput, LoopOutcome } from './types.js';
import { ModelView, defineMessages, withOriginalNames } from './wire-names.js';
import { turnProblem } from '../store/records.js';
import { applyControls } from './controls.js';

/**
 * The one model-and-tool loop, driven by the conductor (`createConductor`, behind `createAgent` and `runAgent`). It first settles the open batch
 * of tool calls, if the context ends inside one (resuming after approvals); then, step after step, it
 * asks `prepareStep` for the step's overrides (a condensation among them), calls the model, appends the
 * reply, runs the tools it asked for, appends their results, and repeats until a reply asks for no tool
 * (`settled`), calls wait for approval (`waiting`), or it throws: `MaxStepsError`, `RunAbortedError`,
 * `ModelCallError`, `ContextWindowExceededError` (a reply with stop reason `model_context_window_exceeded`,
 * offered to `prepareStep` first) or whatever the hook threw.
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
  const { context, signal, emit, tools, runId } = input;
  const view = input.view ?? new ModelView(tools.names);
  const onText = (delta: string) => emit({ kind: 'text_delta', delta, runId });
  const onRetry = (retry: ModelRetry) => emit({ kind: 'model_retry', ...retry, runId });
  let steps = 0;
  let previous = input.previous;
  // True right after a reply: its tool calls may run without a decision unless their tool needs approval.
  let fresh = false;

  const checkpoint = async (): Promise<void> => {
    if (input.durability !== undefined) await input.durability.checkpoint();
  };
  const condense = async (condensation: Compaction): Promise<void> => {
    input.condense(condensation);
    view.reset();
    await checkpoint();
  };
  const prepare = async (failure?: unknown): Promise<StepOverrides | undefined> => {
    const hook = input.prepareStep;
    if (hook === undefined) return undefined;
    const step: StepInput = {
      step: steps,
      messages: context,
      system: input.system,
      volatileSystem: input.volatileSystem,
      tools: tools.specs,
      signal,
    };
    if (previous !== undefined) step.previous = previous;
    if (failure !== undefined) step.failure = failure;
    return (await abort.race(Promise.resolve(hook(step)))) ?? undefined;
  };
  const requestFor = (overrides: StepOverrides | undefined): ModelRequest => {
    // `messages` is the invoker's to keep, copied from the view's append-only mirror only when read
    // (see `defineMessages`), and defined right after `model` so that the request's keys keep their order.
    const mirror = view.of(context);
    const request = { model: overrides?.model?.modelId ?? input.model } as ModelRequest;
    defineMessages(request, mirror, mirror.length);
    request.tools = overrides?.tools ?? tools.specs;
    request.maxOutputTokens = overrides?.maxOutputTokens ?? input.maxOutputTokens;
    request.signal = signal;
    request.onText = onText;
    request.onRetry = onRetry;
    const system = overrides?.system ?? input.system;
    if (system !== undefined) request.system = system;
    const volatileSystem = overrides?.volatileSystem ?? input.volatileSystem;
    if (volatileSystem !== undefined) request.volatileSystem = volatileSystem;
    if (input.providerOptions !== undefined) request.providerOptions = input.providerOptions;
    const controls = overrides === undefined ? input.controls : overriddenControls(input.controls, overrides);
    if (controls !== undefined) applyControls(request, controls, steps === 0, tools.names);
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
      // Not through `checkpoint`, here and below: without durability a step awaits nothing it need not.
      if (input.durability !== undefined) await input.durability.checkpoint();
      emit({ kind: 'step', steps });
      if (pending.length > 0) {
        if (!signal.aborted) return { status: 'waiting', pending, steps, previous };
        continue; // closes the batch as aborted above
      }
    } else if (fresh) {
      emit({ kind: 'step', steps });
      return { status: 'settled', pending: [], steps, previous };
    }

    if (steps >= input.maxSteps) throw new MaxStepsError(input.maxSteps);
    let overrides = input.prepareStep === undefined ? undefined : await prepare();
    if (overrides?.compaction !== undefined) await condense(overrides.compaction);
    let reply: ModelReply;
    try {
      reply = await callModel(input, overrides, requestFor(overrides), abort);
    } catch (error) {
      // One condensation per step: a step that condensed already lets its failure stand.
      if (signal.aborted || overrides?.compaction !== undefined) throw error;
      const retry = await prepare(error);
      if (retry?.compaction === undefined) throw error;
      await condense(retry.compaction);
      overrides = { ...overrides, ...retry };
      reply = await callModel(input, overrides, requestFor(overrides), abort);
    }
    const sentTurns = context.length;
    steps++;
    const turn = withOriginalNames(reply.turn, tools.names);
    input.append(turn, reply);
    previous = { reply, sentTurns };
    // The reply is durable before any of its tools starts: after a crash its calls count as possibly run.
    if (input.durability !== undefined && hasToolCall(turn)) await input.durability.checkpoint();
    fresh = true;
  }
}

function hasToolCall(turn: Turn): boolean {
  for (const block of turn.blocks) if (block.kind === 'tool_call') return true;
  return false;
}

/** The run's controls with a step's over them (a step's `thinking: false` turns thinking off for that call). */
function overriddenControls(controls: RunControls | undefined, overrides: StepOverrides): RunControls | undefined {
  const { temperature, topP, stopSequences, toolChoice, thinking } = overrides;
  if (
    temperature === undefined &&
    topP === undefined &&
    stopSequences === undefined &&
    toolChoice === undefined &&
    thinking === undefined
  ) {
    return controls;
  }
  const merged: RunControls = { ...controls };
  if (temperature !== undefined) merged.temperature = temperature;
  if (topP !== undefined) merged.topP = topP;
  if (stopSequences !== undefined) merged.stopSequences = stopSequences;
  if (toolChoice !== undefined) merged.toolChoice = toolChoice;
  if (thinking === false) delete merged.thinking;
  else if (thinking !== undefined) merged.thinking = thinking;
  return merged;
}

async function callModel(
  input: LoopInput,
  overrides: StepOverrides | undefined,
  request: ModelRequest,
  abort: AbortRace,
): Promise<ModelReply> {
  const invoker = overrides?.model ?? input.invoke;
  // The budget refuses a call that could cross the run's limits before it is made, and counts what it cost.
  const spent = input.budget?.modelCall(request, invoker);
  let reply: ModelReply;
  try {
    reply = await abort.race(invoker(request));
  } catch (error) {
    spent?.(undefined);
    if (input.signal.aborted) throw RunAbortedError.isInstance(error) ? error : new RunAbortedError({ cause: error });
    if (IndusagiError.isInstance(error)) throw error;
    throw new ModelCallError(`The model call failed: ${errorMessage(error)}`, { cause: error });
  }
  spent?.(reply?.usage);
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
 * Why a reply cannot join the context, or null. Beyond the shape every stored turn has, each tool call
 * needs an id and a name of its own: a result is paired with its call, and an approval with its call,
 * by that id alone, so a missing or repeated one would leave a call no result can answer, or let one
 * approval run two calls.
 */
function replyProblem(turn: Turn): string | null {
  if (turn.role !== 'assistant') return `its role is ${JSON.stringify(turn.role)}, not "assistant"`;
  const shape = turnProblem(turn);
  if (shape !== null) return shape;
  // The ids seen so far: a set only from the second call on (most replies make one call, or none).
  let first: string | undefined;
  let ids: Set<string> | undefined;
  for (const block of turn.blocks) {
    if (block.kind !== 'tool_call') continue;
    if (block.id === '') return 'a tool call has no id';
    if (block.name === '') return `tool call ${block.id} has no tool name`;
    if (first === undefined) {
      first = block.id;
      continue;
    }
    ids ??= new Set([first]);
    if (ids.has(block.id)) return `two tool calls share the id ${block.id}`;
    ids.add(block.id);
  }
  return null;
}
