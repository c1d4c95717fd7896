import type { Turn } from './turn.js';
import type { ModelControls, ModelInvoker, ModelReply, ModelTool, ModelUsage } from './model.js';

/**
 * A compaction as a value: `summary` replaces the turns before `keptFrom`, and the turns from
 * `keptFrom` on stay verbatim after it. The session records the summary with the node of the first
 * kept turn as its `condenses.firstKept`; nothing is ever read back out of the summary's text.
 */
export type Compaction = {
  /** The summary turn, a user turn (by convention its first text block starts with `[condensed earlier context]`). */
  summary: Turn;
  /** Index into the step's `messages` where the verbatim tail starts: `messages.length` keeps none. */
  keptFrom: number;
  /** What producing the summary cost (the summarizer's model calls): counted in the run's usage, stored on the summary node. */
  usage?: ModelUsage;
  /** The estimated size of the context before and after, for the `compacted` event. */
  tokensBefore?: number;
  tokensAfter?: number;
};

/** What the per-step hook is asked with, once before each model call of a run. */
export type StepInput = {
  /** Model calls this run made before this one: 0 for its first. */
  step: number;
  /** The context the call will send, tool names original. Read it; never change it (return overrides instead). */
  messages: readonly Turn[];
  system: string | undefined;
  /** System text that changes from turn to turn (recalled memory), sent after `system`. */
  volatileSystem: string | undefined;
  /** The tools the model will see, under the names it sees (sanitized). */
  tools: readonly ModelTool[];
  /** The reply of the call before this one, and how many turns of `messages` (from the start) that call sent. */
  previous?: { reply: ModelReply; sentTurns: number };
  /**
   * Set when the hook is asked again because this step's call failed (a prompt too long for the window,
   * or a reply cut off by a full window): return a `compaction` to retry the call once with it, or
   * nothing to let the failure stand. Never set for an abort.
   */
  failure?: unknown;
  signal: AbortSignal;
};

/** What one step overrides. Absent fields keep what the run would send; the controls apply to this call only. */
export type StepOverrides = ModelControls & {
  /** Compact before this call. At most one compaction per step. */
  compaction?: Compaction;
  system?: string;
  volatileSystem?: string;
  /** The tools the model sees for this call (sanitized names, a subset of the run's tools: calls still run through the run's tools). */
  tools?: ModelTool[];
  /** Another model for this call only. */
  model?: ModelInvoker;
  /** This call's output cap (`max_tokens`), for a model whose cap differs from the run's. */
  maxOutputTokens?: number;
};

/**
 * The one way to customise a model call: asked before every call of a run (the calls between the steps
 * of one tool loop included) and again, with `failure`, when a call fails in a way a compaction can
 * cure. Return overrides, or nothing to send the step as it is. Compaction and the context manager are
 * producers of this hook; `AgentConfig.prepareStep` is yours, asked after them.
 */
export type PrepareStep = (step: StepInput) => StepOverrides | undefined | void | Promise<StepOverrides | undefined | void>;
