import type { Turn } from '../contract/turn.js';
import type { CallerRun, InputAnswer, InputQuestion, ResumableTool, ToolContext } from '../contract/tool.js';
import type { Compaction, PrepareStep, StepInput } from '../contract/step.js';
import type { ModelInvoker, ModelReply, ModelRequest, ModelTool, ModelUsage, ProviderOptions, ResponseFormat } from '../contract/model.js';
import type { PendingApproval, RunEvent } from '../contract/events.js';
import type { ToolNameMap } from '../tools/names.js';
import type { RunControls } from './controls.js';

/** The tools one loop may run, under their ORIGINAL names (the loop maps to and from sanitized ones). */
export interface LoopTools {
  /** What the model sees: sanitized names. */
  readonly specs: ModelTool[];
  /** Built with `buildToolNameMap`, so two names that sanitize alike were refused already. */
  readonly names: ToolNameMap;
  has(name: string): boolean;
  /** True when the tool must not run before a human approves the call. */
  needsApproval(name: string): boolean;
  /** True when running a call of the tool twice does no harm, so one a crash cut off may run again. */
  idempotent(name: string): boolean;
  /** The tool's `resumable` when its calls pick up where they stopped (a sub-agent); see `ResumableTool`. */
  resumable(name: string): ResumableTool | undefined;
  /**
   * Checks a call's input against the tool's schema before anything else happens to the call (approval
   * included): the input `execute` is given, or why the call cannot run. Required, so that no wrapper of
   * a toolset can drop it unnoticed (`defineLoopTools` takes any object as is when its source has none).
   */
  check(name: string, input: unknown): InputCheck | Promise<InputCheck>;
  /** Runs the tool with the input `check` gave. A `ToolError` reaches the model as its message; any other throw as `Internal error`. */
  execute(name: string, input: unknown, ctx: ToolContext): unknown;
}

/** A call's input as its tool's schema judged it: the input to run with, or the message the model gets instead. */
export type InputCheck = { ok: true; input: unknown } | { ok: false; message: string };

/** A call about to run (or wait for approval), with the input its tool would run with. `name` is the original. */
export type CheckedCall = { callId: string; name: string; input: unknown };

/** A human's answer to a tool call waiting for approval; keyed by the call id (= approval id). */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };

/**
 * What the loop reports as it goes, stamped with `LoopInput.runId`. Complete turns do not travel as
 * events: the loop hands them to `LoopInput.append`.
 */
export type LoopEvent =
  | Extract<RunEvent, { kind: 'text_delta' | 'tool_started' | 'tool_finished' | 'tool_progress' | 'approval_requested' | 'model_retry' }>
  /** A step (one model call and the tool calls it asked for) is done. */
  | { kind: 'step'; steps: number }
  /**
   * A resumable call stopped waiting on approvals of its own: it has no result, and `pending` are its
   * approvals as the calling agent lists them (ids prefixed with the call's, path with the tool's name).
   */
  | { kind: 'call_waiting'; callId: string; pending: PendingApproval[] };

export type LoopInput = {
  model: string;
  system?: string;
  /** System text that changes from turn to turn (recalled memory); see `ModelRequest.volatileSystem`. */
  volatileSystem?: string;
  /** Passed on every request, untouched; see `ModelRequest.providerOptions`. */
  providerOptions?: ProviderOptions;
  /** Sampling and tool-use controls for this run's requests; see `applyControls`. */
  controls?: RunControls;
  /** Sent on every request; see `ModelRequest.responseFormat`. */
  responseFormat?: ResponseFormat;
  maxOutputTokens: number;
  /** Model calls allowed in this loop before it throws `MaxStepsError`. */
  maxSteps: number;
  /** Stamped on every event the loop emits. */
  runId: string;
  /**
   * The conversation, tool names ORIGINAL, owned by the caller: the loop reads it and changes it only
   * through `append` and `condense`. After the loop returns or throws it holds no half turn and no call
   * left without a result except those waiting for approval.
   */
  context: readonly Turn[];
  /**
   * Adds one complete turn (a reply, with the `reply` it came from; or a batch of tool results) to the
   * end of `context`. The caller records it; a throw ends the loop with that error.
   */
  append(turn: Turn, reply?: ModelReply): void;
  /** Applies a condensation a step asked for to `context` (the caller records it). Throws to refuse it. */
  condense(condensation: Compaction): void;
  invoke: ModelInvoker;
  tools: LoopTools;
  /** Run a step's tool calls one at a time instead of all at once. Results are in call order either way. */
  sequential?: boolean;
  /** Decisions for calls waiting for approval in the open batch (see `openBatch`). */
  decisions?: ReadonlyMap<string, ApprovalDecision>;
  signal: AbortSignal;
  /** Asked before every model call; see `PrepareStep`. */
  prepareStep?: PrepareStep;
  /** Asks the person for input on behalf of call `callId` of tool `name` (`ToolContext.ask`); absent, tools cannot ask. */
  ask?: (callId: string, name: string, question: InputQuestion) => Promise<InputAnswer>;
  /** The reply before this loop's first call (an earlier run's), for a `prepareStep` that calibrates from usage. */
  previous?: StepInput['previous'];
  /** Makes every settled step durable as it settles; absent, nothing is written mid-run. */
  durability?: LoopDurability;
  /** Holds the run to its limits; absent, nothing is counted. */
  budget?: LoopBudget;
  /** Handed to every tool call as `ToolContext.caller`. */
  caller?: CallerRun;
  /**
   * The context as the model sees it (tool names sanitized for `tools.names`), kept from run to run by
   * whoever owns `context`, which resets it whenever the context changes other than by growing. Without
   * it every run converts the whole context again before its first call.
   */
  view?: ContextView;
  /**
   * Asked before any call of a batch runs or waits for approval, with those calls: throws to stop the
   * run there (a guardrail tripped), and then every call of the batch is answered as aborted.
   */
  checkCalls?: (calls: CheckedCall[]) => Promise<void>;
  /**
   * Awaited after a call's `tool_started` is emitted and before it runs, for calls a crash would leave
   * interrupted (tool neither idempotent nor resumable); see `ConductorDeps.beforeToolRuns`.
   */
  beforeToolRuns?: (started: Extract<LoopEvent, { kind: 'tool_started' }>) => Promise<void>;
  emit(event: LoopEvent): void;
};

/**
 * How the loop makes each step durable as it settles (the conductor backs it with the session store):
 * a reply with tool calls is checkpointed before its tools start, results as their batch settles, a
 * replaced context as it is adopted, and approved calls and calls run again after a crash are marked
 * started (and checkpointed) before they run, so a call that may have run is never offered for
 * approval again, nor run again twice.
 */
export type LoopDurability = {
  checkpoint(): Promise<void>;
  markStarted(callIds: string[]): void;
  startsOf(callId: string): number;
};

/**
 * A run's limits as the loop meets them: asked before every model call and before a batch of tool
 * calls starts. Either throws `BudgetExceededError` to stop the run before the call.
 */
export interface LoopBudget {
  /** Before `request` goes to `invoker`: returns what to call with the reply's usage once it is known (none when the call failed). */
  modelCall(request: ModelRequest, invoker: ModelInvoker): (usage: ModelUsage | undefined) => void;
  /** Before `count` tool calls start. */
  toolCalls(count: number): void;
}

/** The context as the model sees it, converted turn by turn as it grows (see `ModelView`). */
export type ContextView = {
  /**
   * The context as the model sees it, in an append-only array: its first `context.length` turns never
   * change afterwards, so a request copies them only when its invoker reads them. `context` must only
   * have grown since the last call or `reset`.
   */
  of(context: readonly Turn[]): readonly Turn[];
  /** Forgets what was converted; called when the context was replaced rather than grown. */
  reset(): void;
};

export type LoopOutcome = {
  /** `waiting` when calls still wait for a decision; the context then ends inside their batch. */
  status: 'settled' | 'waiting';
  pending: PendingApproval[];
  /** Model calls made. */
  steps: number;
  /** The last reply and how many turns of the context its call sent: where the next run's first step calibrates from. */
  previous?: StepInput['previous'];
};
