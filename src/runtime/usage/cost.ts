import type { ModelCard, ModelUsage } from '../contract/model.js';
import { assertUsage } from './check.js';

/** An estimated price in USD, from list prices as of `pricesAsOf` (an ISO date). Not an invoice. */
export type CostEstimate = { usd: number; pricesAsOf: string };

/**
 * What `usage` costs at `card`'s list prices: input, output, cache writes (5-minute and 1-hour rates)
 * and cache reads, each at its own rate. Undefined, never 0, when the card has no prices (a model the
 * table does not know): an unknown cost must not read as free. Throws `InvalidUsageError` for bad usage.
 */
export function estimateCost(usage: ModelUsage, card: ModelCard | undefined): CostEstimate | undefined {
  assertUsage(usage);
  const prices = card?.pricing;
  if (prices === undefined) return undefined;
  const write1h = Math.min(usage.cacheWrite1hTokens ?? 0, usage.cacheWriteTokens);
  const perMillion =
    usage.inputTokens * prices.inputPerMTok +
    usage.outputTokens * prices.outputPerMTok +
    (usage.cacheWriteTokens - write1h) * prices.cacheWritePerMTok +
    write1h * (prices.cacheWrite1hPerMTok ?? prices.inputPerMTok * 2) +
    usage.cacheReadTokens * prices.cacheReadPerMTok;
  return { usd: perMillion / 1_000_000, pricesAsOf: prices.pricesAsOf };
}
