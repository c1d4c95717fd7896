import type { SessionGraph } from '../../runtime/store/graph.js';
import { describeCost, describeUsage, sessionCost } from '../../runtime/usage/index.js';

/** What the session was billed (every branch, summaries included) and what that cost, as far as prices are known. */
export function usageLines(graph: SessionGraph): string[] {
  const { usage, cost, unpriced } = sessionCost(graph.allNodes());
  if (cost === undefined && unpriced.length === 0) return ['usage: no model calls recorded'];
  const lines = [`usage (all branches, as billed): ${describeUsage(usage)}`];
  lines.push(
    cost !== undefined ? `estimated cost: ${describeCost(cost)}` : `estimated cost: unknown, no prices for ${unpriced.join(', ')}`,
  );
  return lines;
}
