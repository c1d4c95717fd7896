// The public face of `indusagi/openai`: OpenAI's models as the conductor's model, through the official
// `openai` client and the Responses API (see docs/providers.md).
export { createOpenAIInvoker } from './invoker.js';
export type { OpenAIInvokerOptions } from './invoker.js';
export type { OpenAIClientLike } from './client.js';
export { requestBody, toInputItems, toModelUsage } from './wire.js';
export type { ResponsesStreamBody, InputItem } from './wire.js';
export { OPENAI } from './options.js';
export type { OpenAIProviderOptions, ReasoningEffort } from './options.js';
export { OpenAIOptionsError } from './errors.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_EVENT_BYTES,
  StreamEventTooLargeError,
  StreamIdleError,
  StreamLimitsError,
} from '../shared/index.js';
export type { StreamLimits } from '../shared/index.js';
export { ModelCallError, PromptTooLongError, RunAbortedError } from '../../runtime/loop/errors.js';
export { openAIEmbedder } from './embedder.js';
export type { OpenAIEmbeddingsClientLike, OpenAIEmbedderOptions } from './embedder.js';
