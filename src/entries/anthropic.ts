// The `indusagi/anthropic` entry: Claude as the conductor's model (`anthropic(model)`, the streaming
// invoker), `runAgent` (the conductor as a stream of parts), the Anthropic wire mapping, and the
// provider's own errors (`MissingApiKeyError`, ...). Curated from the folder's face, which also serves the
// package inside: `createAgent`, `defineAgent` and `AgentDeps` live in indusagi/runtime (CONTRACT.md's row,
// Claude being the default model), the run's errors in indusagi/errors and the stream limits every
// provider applies in indusagi/models: one home per name.
export {
  anthropic,
  anthropicCredentials,
  runAgent,
  RUN_AGENT_DEFAULT_MAX_STEPS,
  createAnthropicInvoker,
  requestBody,
  MAX_CACHE_BREAKPOINTS,
  ANTHROPIC,
  MIN_THINKING_BUDGET,
  checkAnthropicControls,
  toMessageParams,
  fromMessage,
  fromMessageParams,
  toModelUsage,
  UnsupportedMessageError,
  RunAgentOptionsError,
  CacheSettingsError,
  AnthropicOptionsError,
  MalformedStreamError,
  MissingApiKeyError,
  DEFAULT_MAX_RETRY_DELAY_MS,
} from '../providers/anthropic/index.js';
export type {
  AnthropicModelOptions,
  RunAgentOptions,
  AnthropicClientLike,
  AnthropicInvokerOptions,
  CacheMode,
  CacheTtl,
  AnthropicProviderOptions,
} from '../providers/anthropic/index.js';
