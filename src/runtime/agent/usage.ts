import type { ModelUsage } from '../contract/model.js';

export function zeroUsage(): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 };
}

export function addUsage(total: ModelUsage, usage: ModelUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.cacheWriteTokens += usage.cacheWriteTokens;
  total.cacheReadTokens += usage.cacheReadTokens;
}
