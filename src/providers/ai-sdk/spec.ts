// The part of the AI SDK's language model specification (`@ai-sdk/provider`, LanguageModelV3 and V4)
// the adapter uses, declared here rather than imported: the two versions agree on all of it, and the
// published declarations of `indusagi/ai-sdk` then need no `@ai-sdk/provider` (whose own declarations
// need `@types/json-schema`, which it does not install). The tests compile real v3 and v4 models
// against these types.

type Json = null | string | number | boolean | Json[] | { [key: string]: Json | undefined };

/** Options keyed by the AI SDK's provider ids, as `LanguageModelV4CallOptions['providerOptions']`. */
export type SpecProviderOptions = Record<string, Record<string, Json | undefined>>;

export type SpecTextPart = { type: 'text'; text: string };
export type SpecToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown };
export type SpecToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: { type: 'text' | 'error-text'; value: string };
};

export type SpecMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: SpecTextPart[] }
  | { role: 'assistant'; content: Array<SpecTextPart | SpecToolCallPart> }
  | { role: 'tool'; content: SpecToolResultPart[] };

export type SpecCallOptions = {
  prompt: SpecMessage[];
  maxOutputTokens?: number;
  tools?: Array<{ type: 'function'; name: string; description?: string; inputSchema: Record<string, unknown> }>;
  toolChoice?: { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; toolName: string };
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  abortSignal?: AbortSignal;
  providerOptions?: SpecProviderOptions;
};

export type SpecUsage = {
  inputTokens: { total: number | undefined; noCache: number | undefined; cacheRead: number | undefined; cacheWrite: number | undefined };
  outputTokens: { total: number | undefined };
};

export type SpecFinishReason = {
  unified: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';
  raw: string | undefined;
};

/** The stream parts the adapter reads; a model sends others too (sources, files, metadata), which it skips. */
export type SpecStreamPart =
  | { type: 'text-start' | 'reasoning-start'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'tool-input-start'; id: string; toolName: string; providerExecuted?: boolean }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string; providerExecuted?: boolean }
  | { type: 'response-metadata'; id?: string; modelId?: string }
  | { type: 'error'; error: unknown }
  | { type: 'finish'; usage: SpecUsage; finishReason: SpecFinishReason };

/**
 * A language model of specification v3 (the providers of `ai` 6) or v4 (those of `ai` 7), as far as the
 * adapter drives it.
 */
export type AiSdkLanguageModel = {
  readonly specificationVersion: 'v3' | 'v4';
  readonly provider: string;
  readonly modelId: string;
  doStream(options: SpecCallOptions): PromiseLike<{ stream: ReadableStream<{ type: string }> }>;
};
