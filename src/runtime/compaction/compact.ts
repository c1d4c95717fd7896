import type { CompactionPolicy } from '../contract/compaction.js';
import type { ModelCard, ModelInvoker } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import { resolveBudget, type CompactionBudget } from './budget.js';
import { compactAt } from './compact-at.js';
import { shrinkingCuts } from './cut-point.js';
import { estimateTurnTokens } from './estimate.js';
import { resolveCompactionPolicy } from './policy.js';

export type CompactOptions = CompactionBudget & {
  /** Preferred cap on the summary, in tokens. Default 4096. */
  summaryMaxTokens?: number;
  signal?: AbortSignal;
};

/**
 * Compacts `messages` to `[summaryTurn, ...recentTail]` whenever there is something to drop: it does
 * not consult `shouldCompact` (call that to decide). When the cut point is 0 it returns `messages`
 * itself, unchanged, and so it does when the summary came out no smaller than the turns it would
 * replace. If the tail that `keepRecent` asks for would not fit beside a summary, fewer turns
 * are kept; if even the smallest legal tail cannot fit it throws `ContextOverflowError`.
 */
export async function compact(
  messages: Turn[],
  modelCard: ModelCard,
  policy: CompactionPolicy,
  invokeModel: ModelInvoker,
  opts: CompactOptions = {},
): Promise<Turn[]> {
  const resolved = resolveCompactionPolicy(policy);
  const budget = resolveBudget(modelCard, resolved, opts);
  const cuts = shrinkingCuts(messages, resolved.keepRecent);
  // Its first cut is `findCutPoint`'s unless that is 0 (no legal cut keeps `keepRecent` turns).
  if (cuts.length === 0 || cuts[0] > messages.length - resolved.keepRecent) return messages;
  const cumulative = [0];
  for (const turn of messages) cumulative.push(cumulative[cumulative.length - 1] + estimateTurnTokens(turn));
  const result = await compactAt(messages, cumulative, cuts, budget.overhead + cumulative[messages.length], {
    card: modelCard,
    budget,
    invokeModel,
    summaryMaxTokens: opts.summaryMaxTokens,
    signal: opts.signal,
  });
  return result === null ? messages : result.messages;
}
