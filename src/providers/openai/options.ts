import type { ProviderOptions } from '../../runtime/contract/model.js';
import { OpenAIOptionsError } from './errors.js';

/** The provider id of the OpenAI invoker: the key of its `providerOptions`. */
export const OPENAI = 'openai';

/** How hard a reasoning model thinks before it answers; the API's default depends on the model. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** `providerOptions.openai`: what a config or request may set for the OpenAI invoker. */
export type OpenAIProviderOptions = {
  /** Sent as `reasoning.effort`; only reasoning models (GPT-5, o-series) accept it. */
  reasoningEffort?: ReasoningEffort;
  /**
   * Sent as `prompt_cache_key`: requests with the same key are routed to the same prompt cache, which
   * raises the cache hit rate of one conversation's calls. Left off requests that are not `cacheable`.
   */
  promptCacheKey?: string;
};

const EFFORTS: readonly ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const KEYS = ['reasoningEffort', 'promptCacheKey'];

/**
 * Reads `providerOptions.openai` (or the invoker's defaults), throwing `OpenAIOptionsError` for a key
 * or value it does not know: an option that silently does nothing is worse than an error. Other
 * providers' keys are not ours to judge.
 */
export function openaiOptions(options: ProviderOptions | undefined): OpenAIProviderOptions {
  const own = options?.[OPENAI];
  return own === undefined ? {} : checkOpenAIOptions(own, '`providerOptions.openai`');
}

export function checkOpenAIOptions(own: unknown, where: string): OpenAIProviderOptions {
  if (typeof own !== 'object' || own === null || Array.isArray(own)) throw new OpenAIOptionsError(`${where} must be an object`);
  const record = own as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KEYS.includes(key)) throw new OpenAIOptionsError(`${where}.${key} is not an OpenAI option (known: ${KEYS.join(', ')})`);
  }
  const { reasoningEffort, promptCacheKey } = record;
  if (reasoningEffort !== undefined && !EFFORTS.includes(reasoningEffort as ReasoningEffort)) {
    throw new OpenAIOptionsError(`${where}.reasoningEffort must be one of ${EFFORTS.join(', ')}, got ${JSON.stringify(reasoningEffort)}`);
  }
  if (promptCacheKey !== undefined && (typeof promptCacheKey !== 'string' || promptCacheKey === '')) {
    throw new OpenAIOptionsError(`${where}.promptCacheKey must be a non-empty string, got ${JSON.stringify(promptCacheKey)}`);
  }
  return record as OpenAIProviderOptions;
}
