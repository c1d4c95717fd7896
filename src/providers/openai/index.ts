// The public face of `indusagi/openai`: OpenAI's models as the conductor's model, through the official
// `openai` client and the Responses API (see docs/providers.md).
export { createOpenAIInvoker } from './invoker.js';
export type { OpenAIInvokerOptions } from './invoker.js';
export type { OpenAIClientLike } from './client.js';
export { openAIRequestBody, toInputItems, openAIModelUsage } from './wire.js';
export type { ResponsesStreamBody, InputItem } from './wire.js';
export { OPENAI } from './options.js';
export type { OpenAIProviderOptions, ReasoningEffort } from './options.js';
export { OpenAIOptionsError } from './errors.js';
// The stream limits every provider applies (`DEFAULT_IDLE_TIMEOUT_MS`, `StreamIdleError`, ...) live in
// indusagi/models and the run's errors (`ModelCallError`, ...) in indusagi/errors: one home per name.
export { openAIEmbedder } from './embedder.js';
export type { OpenAIEmbeddingsClientLike, OpenAIEmbedderOptions } from './embedder.js';
