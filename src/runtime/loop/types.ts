import type { Turn } from '../contract/turn.js';
import type { ModelInvoker, ModelReply, ModelRequest, ModelTool, ProviderOptions, ResponseFormat } from '../contract/model.js';
import type { PendingApproval, RunEvent } from '../contract/events.js';
import type { ToolContext } from '../contract/tool.js';
import type { ToolNameMap } from '../../tools/names.js';
import type { RunControls } from './controls.js';

export type ToolCallContext = Pick<ToolContext, 'signal' | 'callId' | 'progress'>;

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
  /**
   * Checks a call's input against the tool's schema before anything else happens to the call (approval
   * included): the input `execute` is given, or why the call cannot run. Required, so that no wrapper of
   * a toolset can drop it unnoticed (`defineLoopTools` takes any object as is when its source has none).
   */
  check(name: string, input: unknown): InputCheck | Promise<InputCheck>;
  /** Runs the tool with the input `check` gave. A `ToolError` reaches the model as its message; any other throw as `Internal error`. */
  execute(name: string, input: unknown, ctx: ToolCallContext): unknown;
}

/** A call's input as its tool's schema judged it: the input to run with, or the message the model gets instead. */
export type InputCheck = { ok: true; input: unknown } | { ok: false; message: string };

/** A human's answer to a tool call waiting for approval; keyed by the call id (= approval id). */
export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };

/**
 * The extension points around every model call, including the calls between the steps of one tool
 * loop. Condensation and context managers plug into `beforeModelCall`; usage accounting and token
 * calibration into `afterModelCall`.
 */
export type LoopHooks = {
  /**
   * Returns the context to continue with. Return `context` itself to keep it; return a NEW array to
   * replace it (never mutate `context`): the loop adopts it for this and every later step.
   */
  beforeModelCall?: (context: readonly Turn[], signal: AbortSignal) => Turn[] | readonly Turn[] | Promise<Turn[] | readonly Turn[]>;
  /**
   * Sees every reply with its `usage`, before the loop acts on it. `sent.context` is the context the
   * call was made from (original tool names, the same turn objects `beforeModelCall` saw); it is only
   * valid during the call, as the loop appends to it next.
   */
  afterModelCall?: (reply: ModelReply, sent: { context: readonly Turn[]; request: ModelRequest }) => void | Promise<void>;
  /**
   * Sees a model call that failed (never an abort), including a reply that stopped with
   * `model_context_window_exceeded` (as `ContextWindowExceededError`; the partial reply is not kept).
   * Return a NEW context to retry the call once with it (adopted like a `beforeModelCall` replacement,
   * e.g. condensed after "prompt is too long"); return undefined to let the failure stand. A retry
   * that fails too ends the loop with that failure.
   */
  recoverModelCall?: (
    error: unknown,
    context: readonly Turn[],
    signal: AbortSignal,
  ) => Turn[] | readonly Turn[] | undefined | Promise<Turn[] | readonly Turn[] | undefined>;
};

/** What the loop reports as it goes. The first six are `RunEvent`s, forwarded as they are. */
export type LoopEvent =
  | Extract<RunEvent, { kind: 'text_delta' | 'tool_started' | 'tool_progress' | 'tool_finished' | 'approval_requested' | 'model_retry' }>
  /** A complete turn joined the context (a reply, or a batch of tool results). Never half a turn. */
  | { kind: 'turn'; turn: Turn }
  /** A model call returned. */
  | { kind: 'reply'; reply: ModelReply }
  /** `beforeModelCall` replaced the context. */
  | { kind: 'context_replaced'; previous: readonly Turn[]; next: readonly Turn[] }
  /** A step (one model call and the tool calls it asked for) is done. */
  | { kind: 'step'; steps: number };

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
  /**
   * The caller's working copy of the conversation, tool names ORIGINAL. The loop appends to it in
   * place (and replaces its contents when a hook replaces the context); after the loop returns or
   * throws it holds the conversation as it stands, with no half turn and no call left without a result
   * except those waiting for approval.
   */
  context: Turn[];
  invoke: ModelInvoker;
  tools: LoopTools;
  /** Run a step's tool calls one at a time instead of all at once. Results are in call order either way. */
  sequential?: boolean;
  /** Decisions for calls waiting for approval in the open batch (see `openBatch`). */
  decisions?: ReadonlyMap<string, ApprovalDecision>;
  signal: AbortSignal;
  hooks?: LoopHooks;
  /** Makes every settled step durable as it settles; absent, nothing is written mid-run. */
  durability?: LoopDurability;
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

export type LoopOutcome = {
  /** `waiting` when calls still wait for a decision; the context then ends inside their batch. */
  status: 'settled' | 'waiting';
  pending: PendingApproval[];
  /** Model calls made. */
  steps: number;
};
