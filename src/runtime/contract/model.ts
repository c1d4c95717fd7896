import type { Turn } from './turn.js';

/** What the runtime knows about a model: its window and output cap, and optionally its prices. */
export type ModelCard = {
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** USD per million tokens; an estimate, dated by `pricesAsOf`. */
  pricing?: ModelPricing;
  /**
   * What the model takes in a prompt besides text. Left out, or a field left out, means it does:
   * invokers refuse only what a card says a model cannot take (`UnsupportedContentError`, before the
   * request), and leave the rest for the API to judge. A text document is text, which every model takes.
   */
  input?: { images?: boolean; documents?: boolean };
  /**
   * How a required JSON answer (`submit`'s `output`, `ModelRequest.responseFormat`) reaches the model:
   * `native` (the default), through the API's own structured output; `instruction`, for a model whose
   * API has none, as an instruction carrying the schema at the end of the system text.
   */
  structuredOutput?: 'native' | 'instruction';
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

/**
 * Options only one provider understands, keyed by its id (`{ anthropic: { cacheTtl: '1h' } }`). The
 * runtime passes them through untouched; each invoker reads and validates its own key and ignores the
 * others, so one config can carry options for several providers.
 */
export type ProviderOptions = Record<string, Record<string, unknown>>;

export type StopReason =
  'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded' | (string & {});

/**
 * How the model may use tools: decide itself (`auto`), call at least one (`any`), call this one
 * (`{ tool }`, by its original name in a config; the loop sends the model's name), or none (`none`).
 */
export type ToolChoice = 'auto' | 'any' | 'none' | { tool: string };

/** Extended thinking: the model reasons first, in up to `budgetTokens` tokens, counted in its output tokens. */
export type ThinkingControl = { budgetTokens: number };

/**
 * Sampling and tool-use controls, vendor-neutral: each invoker maps them to its API. On a config they
 * apply to every run; on `submit` they override the config's for that run (`thinking: false` turns it off).
 */
export type ModelControls = {
  /** Randomness of sampling; 0 is the most deterministic. */
  temperature?: number;
  /** Nucleus sampling: only the tokens making up this much probability mass are considered. */
  topP?: number;
  /** Text that ends the reply when the model produces it (stop reason `stop_sequence`). */
  stopSequences?: string[];
  toolChoice?: ToolChoice;
  thinking?: ThinkingControl | false;
};

/** See `ModelRequest.responseFormat`. */
export type ResponseFormat = { type: 'json'; schema: object };

export type ModelRequest = {
  model: string;
  /** The stable system prompt: the same on every call of a conversation, so it is cached. */
  system?: string;
  /**
   * System text that may change from turn to turn (recalled memory): sent after `system`, outside the
   * cached system prefix, so a change to it does not cost the cached tools and system prompt.
   */
  volatileSystem?: string;
  /**
   * False for a one-off prompt that will not be sent again (the summarizer's): an invoker should not
   * pay to write it to a prompt cache. Default true.
   */
  cacheable?: boolean;
  /** Passed through to the invoker untouched; see `ProviderOptions`. */
  providerOptions?: ProviderOptions;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  /** For this call; `{ tool }` names the tool as the model sees it (sanitized). */
  toolChoice?: ToolChoice;
  thinking?: ThinkingControl;
  /**
   * The final answer must be one JSON value matching `schema` (a JSON Schema). An invoker constrains
   * the model to it where its API can (Claude: `output_config.format`); the conductor validates the
   * answer either way. Tool calls stay allowed before the answer.
   */
  responseFormat?: ResponseFormat;
  /** The conversation to send; tool names inside `tool_call` blocks are the sanitized ones. */
  messages: Turn[];
  tools: ModelTool[];
  maxOutputTokens: number;
  signal?: AbortSignal;
  /** Called with each piece of assistant text as it streams. */
  onText?: (delta: string) => void;
  /** Called before each retry an invoker makes of this request, with the wait it is about to take. */
  onRetry?: (retry: ModelRetry) => void;
  /**
   * Called once, when the first piece of the streamed reply arrives (any event, not only text), so a
   * caller can measure the time to first chunk. An invoker that does not stream may never call it.
   */
  onFirstChunk?: () => void;
  /**
   * What the call is for when it is not a step of the conversation: `summary` for the compaction
   * summarizer's one-off prompt. Telemetry reports it; invokers need not read it.
   */
  purpose?: 'summary';
};

/**
 * One retry of a model call: the `attempt` about to be made (2 for the first retry), after `delayMs`.
 * `model` is set when the attempt goes to another model than the one that failed (`fallbackModels`).
 */
export type ModelRetry = { attempt: number; delayMs: number; status?: number; reason: string; model?: string };

export type ModelReply = {
  /** The assistant turn, complete. */
  turn: Turn;
  stopReason: StopReason;
  usage?: ModelUsage;
  /** The provider's id for this response (Anthropic's `msg_…`), when it gives one. */
  id?: string;
  /** The model that answered, as the provider names it (may be more specific than the one asked for). */
  model?: string;
};

/**
 * The one seam between the runtime and a model: the runtime sees models only through it. The Anthropic
 * invoker implements it over the SDK; other providers, tests and benchmarks implement it too. It must
 * reject (not resolve) when the call fails: `RunAbortedError` once `request.signal` fired,
 * `ModelCallError` (with the HTTP `status`) for a failed call.
 *
 * Optional properties describe the invoker without the runtime knowing the vendor: `provider`, the id
 * its `providerOptions` are keyed by (and what telemetry reports); `modelId` and `card`, the model it
 * calls and what is known of it, so a model is described in one place (`createAgent({ model: invoker })`);
 * and `checkOptions`, which throws a typed error for provider options it cannot use, so a config fails
 * when the agent is created rather than on the first call.
 */
export type ModelInvoker = ((request: ModelRequest) => Promise<ModelReply>) & {
  readonly provider?: string;
  /**
   * The model this invoker calls, whatever `request.model` says (an invoker built for one model). Absent
   * for an invoker that calls the model each request names (`createAnthropicInvoker(client)` without `model`).
   */
  readonly modelId?: string;
  /**
   * What is known of that model (window, output cap, prices). Absent, the card registry's is used
   * (`modelCard(modelId)`: registered, built in, or the default).
   */
  readonly card?: ModelCard;
  /**
   * For an invoker that routes each call to one of several (`fallbackModels`): those invokers, in order,
   * so their cards can price the replies they give.
   */
  readonly models?: readonly ModelInvoker[];
  checkOptions?(options: ProviderOptions | undefined): void;
  /**
   * Throws a typed error for controls this model cannot take together (with Claude, a temperature
   * beside thinking), so a config fails when the agent is created and a `submit` before its run starts.
   */
  checkControls?(controls: ModelControls, limits: { maxOutputTokens: number }): void;
};
