import { IndusagiError } from '../../errors/index.js';
import type { FaultKind, RunSnapshot } from '../contract/events.js';
import type { ModelReply } from '../contract/model.js';
import type { LimitName } from '../contract/limits.js';

const FAULT_KINDS: ReadonlySet<string> = new Set<FaultKind>([
  'aborted',
  'max_steps',
  'model_error',
  'context_overflow',
  'summarizer_failed',
  'store_error',
  'invalid_request',
  'invalid_output',
  'budget_exceeded',
  'guardrail_tripped',
  'depth_exceeded',
  'internal',
]);

/**
 * What `Agent.submit` (and `approve`/`reject`) reject with when a run fails: `kind` says why, `snapshot`
 * is the state the run left behind (also published with `faulted`), `cause` the underlying error.
 */
export class RunFault extends IndusagiError {
  static override readonly errorName: string = 'RunFault';
  declare readonly kind: FaultKind;
  constructor(
    kind: FaultKind,
    message: string,
    readonly snapshot: RunSnapshot,
    options?: { cause?: unknown },
  ) {
    super(kind, message, options);
  }
}

/** The run was aborted (`agent.abort()`, a caller's signal, or a consumer leaving `runAgent` early). */
export class RunAbortedError extends IndusagiError {
  static override readonly errorName: string = 'RunAbortedError';
  constructor(options?: { cause?: unknown }) {
    super('aborted', 'The run was aborted.', options);
  }
}

/** The model still wanted tools after `maxSteps` model calls. */
export class MaxStepsError extends IndusagiError {
  static override readonly errorName: string = 'MaxStepsError';
  constructor(readonly maxSteps: number) {
    super('max_steps', `The model was still calling tools after ${maxSteps} model calls (maxSteps); the run stopped.`);
  }
}

/**
 * The next call would have crossed one of a run's `limits`, so it was not made and the run stops here
 * (every later call the run, or a sub-agent of it, would make is refused too). `spent` is what the
 * limit had counted and `needed` what the refused call would have added at most, in the limit's unit
 * (USD, tokens, calls, milliseconds). `budget` is the run budget whose limit it was: a sub-agent's own,
 * or one of the runs above it.
 */
export class BudgetExceededError extends IndusagiError {
  static override readonly errorName: string = 'BudgetExceededError';
  constructor(
    readonly limit: LimitName,
    readonly max: number,
    readonly spent: number,
    readonly needed: number,
    readonly budget: object,
  ) {
    super('budget_exceeded', `The run stopped before a call that would cross its ${limit} of ${max} (${describe(limit, spent, needed)}).`);
  }
}

/**
 * A call of the agent tool `tool` would have started a sub-agent at `depth` (the top agent is 0, the
 * agents it calls 1), past the `maxDepth` its tree allows. The sub-agent was not started and every run
 * up the tree stops with fault `depth_exceeded`: an agent that calls itself would otherwise nest agents
 * until memory runs out, and answering the deepest call with an error only lets the one above call again.
 */
export class AgentDepthError extends IndusagiError {
  static override readonly errorName: string = 'AgentDepthError';
  constructor(
    readonly tool: string,
    readonly depth: number,
    readonly maxDepth: number,
  ) {
    super(
      'depth_exceeded',
      `The ${tool} agent was not started: it would run ${depth} agents deep, past the most its tree allows (maxDepth ${maxDepth}); every run up the tree stopped.`,
    );
  }
}

function describe(limit: LimitName, spent: number, needed: number): string {
  switch (limit) {
    case 'maxCostUsd':
      return `spent $${spent.toFixed(4)}; the next call could cost up to $${needed.toFixed(4)}`;
    case 'maxTokens':
      return `spent ${spent} tokens; the next call could take up to ${needed}`;
    case 'maxToolCalls':
      return `${spent} tool calls made; ${needed} more were asked for`;
    case 'maxDurationMs':
      return `${Math.round(spent)} ms have passed`;
  }
}

/** A model call failed: network, an HTTP error after the client's own retries, or an error event mid-stream. */
export class ModelCallError extends IndusagiError {
  static override readonly errorName: string = 'ModelCallError';
  /** The HTTP status, when the failure was an HTTP error response. */
  readonly status: number | undefined;
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super('model_error', message, { cause: options.cause });
    this.status = options.status;
  }
}

/**
 * The API refused a call because the prompt does not fit the model's window (its 400 "context length
 * exceeded", however the vendor words it). Invokers throw it, so the runtime condenses and retries
 * without knowing any vendor's wording; `promptTokens` is the size the API reported, when it did.
 */
export class PromptTooLongError extends ModelCallError {
  static override readonly errorName: string = 'PromptTooLongError';
  readonly promptTokens: number | undefined;
  constructor(message: string, options: { status?: number; cause?: unknown; promptTokens?: number } = {}) {
    super(message, options);
    this.promptTokens = options.promptTokens;
  }
}

/**
 * A reply that stopped because the prompt left no room to answer (stop reason
 * `model_context_window_exceeded`). The API sends it instead of the 400 "prompt is too long" on newer
 * models; it is the same overflow, so the loop treats the call as failed: the partial reply is never
 * kept, and the per-step hook is asked again with it as `failure` (a condensation retries the call once). `reply` is the partial reply.
 */
export class ContextWindowExceededError extends IndusagiError {
  static override readonly errorName: string = 'ContextWindowExceededError';
  /** The whole prompt the API reported (input plus cache reads and writes), when it reported usage. */
  readonly promptTokens: number | undefined;
  constructor(readonly reply: ModelReply) {
    super(
      'context_overflow',
      'The model stopped because the context window was full (stop reason model_context_window_exceeded); the prompt must shrink.',
    );
    const usage = reply.usage;
    this.promptTokens = usage === undefined ? undefined : usage.inputTokens + usage.cacheWriteTokens + usage.cacheReadTokens;
  }
}

/**
 * The fault kind an error maps to: an `IndusagiError` whose `kind` is a `FaultKind` keeps it (so a
 * summarizer or store error raised inside a hook reports as such), anything else is `internal`.
 */
export function faultKindOf(error: unknown): FaultKind {
  return IndusagiError.isInstance(error) && FAULT_KINDS.has(error.kind) ? (error.kind as FaultKind) : 'internal';
}
