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
  /** Cache writes with the 1-hour TTL. Default: twice `inputPerMTok`, the API's rate. */
  cacheWrite1hPerMTok?: number;
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
  /**
   * Of `cacheWriteTokens`, those written with the 1-hour TTL (billed higher than 5-minute writes).
   * Absent when there were none.
   */
  cacheWrite1hTokens?: number;
};

/** Prompt caching of a request: `auto` places cache breakpoints (see docs/usage-and-caching.md), `off` none. */
export type CacheMode = 'auto' | 'off';

/** How long a cache entry lives after its last use. The API's default is `5m`. */
export type CacheTtl = '5m' | '1h';

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
  /** The stable system prompt: the same on every call of a conversation, so it is cached. */
  system?: string;
  /**
   * System text that may change from turn to turn (recalled memory): sent after `system`, outside the
   * cached system prefix, so a change to it does not cost the cached tools and system prompt.
   */
  volatileSystem?: string;
  /** Default: the invoker's own default (`auto` for the Anthropic invoker). */
  cache?: CacheMode;
  /** TTL of the cache breakpoints; default the API's (`5m`). */
  cacheTtl?: CacheTtl;
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
