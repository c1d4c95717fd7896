// Loaded on the first call of a lazily built Claude model (model.ts): the one place the default model
// imports `@anthropic-ai/sdk`, so nothing reaches the SDK before a model call needs it.
import Anthropic from '@anthropic-ai/sdk';
import type { ModelInvoker } from '../../runtime/contract/model.js';
import type { AnthropicClientLike } from './client.js';
import { createAnthropicInvoker, type AnthropicInvokerOptions } from './invoker.js';

/** The streaming invoker over `client`, or over `new Anthropic()` (credentials and base URL from the environment). */
export function sdkInvoker(client: AnthropicClientLike | undefined, options: AnthropicInvokerOptions): ModelInvoker {
  return createAnthropicInvoker(client ?? new Anthropic(), options);
}
