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

/** An image or a PDF in the prompt, in specification v3: base64 data, or a URL. */
export type SpecFilePartV3 = { type: 'file'; mediaType: string; data: string | URL; filename?: string };
/** The same in specification v4, whose data is tagged. */
export type SpecFilePartV4 = {
  type: 'file';
  mediaType: string;
  data: { type: 'data'; data: string } | { type: 'url'; url: URL };
  filename?: string;
};
export type SpecFilePart = SpecFilePartV3 | SpecFilePartV4;

export type SpecMessage<File extends SpecFilePart = SpecFilePart> =
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<SpecTextPart | File> }
  | { role: 'assistant'; content: Array<SpecTextPart | File | SpecToolCallPart> }
  | { role: 'tool'; content: SpecToolResultPart[] };

/** A JSON answer: the provider constrains the reply to `schema` as its API can (OpenAI `json_schema`, Claude's structured outputs). */
export type SpecResponseFormat = { type: 'json'; schema?: Record<string, unknown> };

export type SpecCallOptions<File extends SpecFilePart = SpecFilePart> = {
  prompt: SpecMessage<File>[];
  responseFormat?: SpecResponseFormat;
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

type ModelOf<Version extends string, File extends SpecFilePart> = {
  readonly specificationVersion: Version;
  readonly provider: string;
  readonly modelId: string;
  doStream(options: SpecCallOptions<File>): PromiseLike<{ stream: ReadableStream<{ type: string }> }>;
};

/**
 * A language model of specification v3 (the providers of `ai` 6) or v4 (those of `ai` 7), as far as the
 * adapter drives it. The two differ only in how a file's data is written.
 */
export type AiSdkLanguageModel = ModelOf<'v3', SpecFilePartV3> | ModelOf<'v4', SpecFilePartV4>;

/** Either version's model, called with options built for its own version (see `callOptions`). */
export type AnyVersionModel = ModelOf<'v3' | 'v4', SpecFilePart>;
