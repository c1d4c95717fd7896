import type { Turn } from './turn.js';

/** What the runtime knows about a model: its window and output cap, and optionally its prices. */
export type ModelCard = {
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** USD per million tokens; an estimate, dated by `pricesAsOf`. */
  pricing?: ModelPricing;
};

export type ModelPricing = {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheWritePerMTok: number;
  cacheReadPerMTok: number;
  pricesAsOf: string;
};

/** A tool as the model sees it: name already sanitized to `[a-zA-Z0-9_-]`. */
export type ModelTool = { name: string; description: string; inputSchema: object };

/** Token counts of one model call, as the API reports them (final, cumulative values). */
export type ModelUsage = {
  inputTokens: number;
  outputTokens: number;
  cacheWriteTokens: number;
  cacheReadTokens: number;
};

export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded'
  | (string & {});

export type ModelRequest = {
  model: string;
  system?: string;
  /** The conversation to send; tool names inside `tool_call` blocks are the sanitized ones. */
  messages: Turn[];
  tools: ModelTool[];
  maxOutputTokens: number;
  signal?: AbortSignal;
  /** Called with each piece of assistant text as it streams. */
  onText?: (delta: string) => void;
};

export type ModelReply = {
  /** The assistant turn, complete. */
  turn: Turn;
  stopReason: StopReason;
  usage?: ModelUsage;
};

/**
 * The one seam between the loop and a model. The Anthropic invoker implements it over the SDK; tests
 * and benchmarks may implement it in-process. It must reject (not resolve) when the call fails.
 */
export type ModelInvoker = (request: ModelRequest) => Promise<ModelReply>;
