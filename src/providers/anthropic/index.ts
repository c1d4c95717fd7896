// The folder's face inside the package: Claude as the conductor's model (`createAgent`, `anthropic(model)`),
// the streaming invoker, and `runAgent`, the conductor as a stream of parts. The public `indusagi/anthropic` entry is
// curated from it in src/entries/anthropic.ts (one home per name: `createAgent` is indusagi/runtime's).
export { createAgent, defineAgent } from './create-agent.js';
export type { AgentDeps } from './create-agent.js';
export { anthropic, anthropicCredentials } from './model.js';
export type { AnthropicModelOptions } from './model.js';
export { runAgent } from './run-agent.js';
export { RUN_AGENT_DEFAULT_MAX_STEPS } from './run-agent-options.js';
export type { RunAgentOptions } from './run-agent-options.js';
export type { AnthropicClientLike } from './client.js';
export { createAnthropicInvoker, requestBody } from './invoker.js';
export type { AnthropicInvokerOptions } from './invoker.js';
export { MAX_CACHE_BREAKPOINTS, ANTHROPIC } from './cache.js';
export { MIN_THINKING_BUDGET, checkAnthropicControls } from './check-controls.js';
export type { CacheMode, CacheTtl, AnthropicProviderOptions } from './cache.js';
export { toMessageParams, fromMessage, fromMessageParams, toModelUsage } from './wire.js';
export {
  UnsupportedMessageError,
  RunAgentOptionsError,
  CacheSettingsError,
  AnthropicOptionsError,
  MalformedStreamError,
  MissingApiKeyError,
} from './errors.js';
export { DEFAULT_MAX_RETRY_DELAY_MS } from './retry.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_EVENT_BYTES,
  StreamEventTooLargeError,
  StreamIdleError,
  StreamLimitsError,
} from '../shared/index.js';
export type { StreamLimits } from '../shared/index.js';
export { ModelCallError, PromptTooLongError, RunAbortedError, MaxStepsError } from '../../runtime/loop/errors.js';
