import type { ModelCard, ModelUsage } from '../contract/model.js';
import type { SessionNode } from '../contract/session.js';
import { modelCard } from '../models/cards.js';
import { estimateCost, type CostEstimate } from './cost.js';
import { addUsage, zeroUsage } from './sum.js';

/** The name `unpriced` gives usage stored without a model id. */
export const UNKNOWN_MODEL = '(unknown model)';

export type SessionCost = {
  /** Tokens billed over all the nodes. */
  usage: ModelUsage;
  /**
   * The estimated cost of all of it, each node priced by the model it names; `pricesAsOf` is the
   * oldest price date used. Undefined when any of it cannot be priced, or nothing was billed.
   */
  cost: CostEstimate | undefined;
  /** Models with usage but no prices, in first-seen order. */
  unpriced: string[];
  /**
   * The same split by the model each node names (the model that answered it, so a fallback's answers
   * are apart from the first model's), in first-seen order: its tokens and, when priced, its cost.
   */
  byModel: ModelCost[];
};

/** What one model of a session was billed, and its estimated cost (undefined when its card has no prices). */
export type ModelCost = { model: string; usage: ModelUsage; cost: CostEstimate | undefined };

/**
 * Sums and prices the usage stored on session nodes (`graph.nodes()`, or any subset), each node by the
 * model it names, and splits it by model. Pass every node of a session, forks included, for what the
 * session was billed. `cardOf` defaults to the card registry; `cardLookup(invoker)` also knows the
 * cards an agent's invoker carries (a fallback chain's, every model's).
 */
export function sessionCost(
  nodes: Iterable<Pick<SessionNode, 'usage' | 'model'>>,
  cardOf: (model: string) => ModelCard | undefined = (model) => modelCard(model),
): SessionCost {
  const byModel = new Map<string, ModelUsage>();
  const usage = zeroUsage();
  for (const node of nodes) {
    if (node.usage === undefined) continue;
    const model = node.model ?? UNKNOWN_MODEL;
    let sum = byModel.get(model);
    if (sum === undefined) byModel.set(model, (sum = zeroUsage()));
    addUsage(sum, node.usage);
    addUsage(usage, node.usage);
  }
  const unpriced: string[] = [];
  const split: ModelCost[] = [];
  let usd = 0;
  let pricesAsOf: string | undefined;
  for (const [model, sum] of byModel) {
    const estimate = model === UNKNOWN_MODEL ? undefined : estimateCost(sum, cardOf(model));
    split.push({ model, usage: sum, cost: estimate });
    if (estimate === undefined) {
      unpriced.push(model);
      continue;
    }
    usd += estimate.usd;
    if (pricesAsOf === undefined || estimate.pricesAsOf < pricesAsOf) pricesAsOf = estimate.pricesAsOf;
  }
  const cost = unpriced.length === 0 && pricesAsOf !== undefined ? { usd, pricesAsOf } : undefined;
  return { usage, cost, unpriced, byModel: split };
}
