// The public face of `indusagi/anthropic`: Claude as the conductor's model (`createAgent`), the
// streaming invoker, and `runAgent`, the conductor as a stream of parts.
export { createAgent } from './create-agent.js';
export type { AgentDeps, AnthropicAgentConfig } from './create-agent.js';
export { runAgent, RUN_AGENT_DEFAULT_MAX_STEPS } from './run-agent.js';
export type { RunAgentOptions } from './run-agent.js';
export type { AnthropicClientLike } from './client.js';
export { createAnthropicInvoker, requestBody } from './invoker.js';
export type { AnthropicInvokerOptions } from './invoker.js';
export { MAX_CACHE_BREAKPOINTS, ANTHROPIC } from './cache.js';
export { MIN_THINKING_BUDGET, checkAnthropicControls } from './controls.js';
export type { CacheMode, CacheTtl, AnthropicProviderOptions } from './cache.js';
export { toMessageParams, fromMessage, fromMessageParams, toModelUsage } from './wire.js';
export {
  UnsupportedMessageError,
  RunAgentOptionsError,
  CacheSettingsError,
  AnthropicOptionsError,
  MalformedStreamError,
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
