import type { Attributes } from '@opentelemetry/api';
import type { ModelUsage } from '../runtime/contract/index.js';
import {
  ATTR_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_USAGE_INPUT_TOKENS,
  ATTR_USAGE_OUTPUT_TOKENS,
} from './conventions.js';

/**
 * All input tokens of `usage`, cached ones included, as the conventions count `gen_ai.usage.input_tokens`
 * (the Anthropic API reports cache reads and writes apart from `input_tokens`).
 */
export function inputTokensOf(usage: ModelUsage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

export function usageAttributes(usage: ModelUsage): Attributes {
  return {
    [ATTR_USAGE_INPUT_TOKENS]: inputTokensOf(usage),
    [ATTR_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    [ATTR_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cacheReadTokens,
    [ATTR_USAGE_CACHE_CREATION_INPUT_TOKENS]: usage.cacheWriteTokens,
  };
}
