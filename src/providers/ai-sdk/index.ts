// The public face of `indusagi/ai-sdk`: any model of the AI SDK's provider specification (OpenAI,
// Anthropic, Google, Mistral, Bedrock, OpenAI-compatible local servers…) as the conductor's model.
export { fromAiSdk } from './invoker.js';
export type { FromAiSdkOptions } from './invoker.js';
export type { AiSdkLanguageModel } from './model.js';
export { toPrompt, callOptions } from './prompt.js';
export type { SpecVersion } from './prompt.js';
export { aiSdkModelUsage, stopReasonOf } from './reply.js';
export { AiSdkModelError, AiSdkOptionsError } from './errors.js';
// The stream limits every provider applies (`DEFAULT_IDLE_TIMEOUT_MS`, `StreamIdleError`, ...) live in
// indusagi/models and the run's errors (`ModelCallError`, ...) in indusagi/errors: one home per name.
export { cappedFetch } from '../shared/index.js';
export type { CappedFetchOptions } from '../shared/index.js';
export { fromAiSdkEmbedding } from './embedder.js';
export type { AiSdkEmbeddingModel } from './embedder.js';
