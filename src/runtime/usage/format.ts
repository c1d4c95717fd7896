import type { ModelUsage } from '../contract/model.js';
import type { CostEstimate } from './cost.js';

const count = new Intl.NumberFormat('en-US');

/** One line for logs and terminals: `1,200 input, 80 output, 4,000 cache write, 30,000 cache read tokens`. */
export function describeUsage(usage: ModelUsage): string {
  return (
    `${count.format(usage.inputTokens)} input, ${count.format(usage.outputTokens)} output, ` +
    `${count.format(usage.cacheWriteTokens)} cache write, ${count.format(usage.cacheReadTokens)} cache read tokens`
  );
}

/** `$0.0421 (estimate from list prices as of 2026-11-01)`; cents alone would hide what a short session costs. */
export function describeCost(cost: CostEstimate): string {
  const digits = cost.usd >= 1 ? 2 : 4;
  return `$${cost.usd.toFixed(digits)} (estimate from list prices as of ${cost.pricesAsOf})`;
}
