import type { ModelUsage } from '../contract/model.js';

export function zeroUsage(): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 };
}

/**
 * Adds one call's `usage` into `total`, in place. A call's counts are its final values (the API's
 * cumulative counts, not increments), so calls add up; `cacheWrite1hTokens` appears once any call had some.
 */
export function addUsage(total: ModelUsage, usage: ModelUsage): void {
  total.inputTokens += usage.inputTokens;
  total.outputTokens += usage.outputTokens;
  total.cacheWriteTokens += usage.cacheWriteTokens;
  total.cacheReadTokens += usage.cacheReadTokens;
  if (usage.cacheWrite1hTokens) total.cacheWrite1hTokens = (total.cacheWrite1hTokens ?? 0) + usage.cacheWrite1hTokens;
}

/** The sum of `usages`, skipping undefined entries (turns no model call produced). */
export function sumUsage(usages: Iterable<ModelUsage | undefined>): ModelUsage {
  const total = zeroUsage();
  for (const usage of usages) if (usage !== undefined) addUsage(total, usage);
  return total;
}
