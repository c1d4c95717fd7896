// The public face of `indusagi/ai-sdk`: any model of the AI SDK's provider specification (OpenAI,
// Anthropic, Google, Mistral, Bedrock, OpenAI-compatible local servers…) as the conductor's model.
export { fromAiSdk } from './invoker.js';
export type { FromAiSdkOptions } from './invoker.js';
export type { AiSdkLanguageModel } from './model.js';
export { toPrompt, callOptions } from './prompt.js';
export type { SpecVersion } from './prompt.js';
export { toModelUsage, stopReasonOf } from './reply.js';
export { AiSdkModelError, AiSdkOptionsError } from './errors.js';
export {
  cappedFetch,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_EVENT_BYTES,
  StreamEventTooLargeError,
  StreamIdleError,
  StreamLimitsError,
} from '../shared/index.js';
export type { CappedFetchOptions, StreamLimits } from '../shared/index.js';
export { ModelCallError, PromptTooLongError, RunAbortedError } from '../../runtime/loop/errors.js';
export { fromAiSdkEmbedding } from './embedder.js';
export type { AiSdkEmbeddingModel } from './embedder.js';
