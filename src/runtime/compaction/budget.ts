import type { CompactionPolicy } from '../contract/compaction.js';
import type { ModelCard, ModelTool } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import { CompactionInputError } from './errors.js';
import { estimateContextTokens, estimateTextTokens, estimateToolsTokens } from './estimate.js';
import { assertCount, resolveCompactionPolicy, type ResolvedCompactionPolicy } from './policy.js';

/** What travels with every model call besides the messages. */
export type CompactionBudget = {
  /** The system prompt sent with every call. */
  systemText?: string;
  /** The tool definitions sent with every call. */
  tools?: readonly ModelTool[];
  /** The `max_tokens` each call requests, reserved so the reply fits as well. Default 0. */
  maxOutputTokens?: number;
};

/**
 * A request fits when `input + reserve <= limit`, where input is the estimated tokens of the
 * messages plus `overhead` (system prompt and tool definitions), `reserve` is the requested
 * `max_tokens`, and `limit` is `floor(contextWindow × triggerRatio)`. The same rule decides when to
 * compact (the next request would not fit) and whether a compacted context is good enough, so a
 * compaction can never leave a context that immediately asks to be compacted again.
 */
export type Budget = { limit: number; overhead: number; reserve: number };

export function resolveBudget(card: ModelCard, policy: ResolvedCompactionPolicy, budget: CompactionBudget = {}): Budget {
  if (typeof card?.contextWindow !== 'number' || !Number.isInteger(card.contextWindow) || card.contextWindow <= 0) {
    throw new CompactionInputError(`the model card's contextWindow must be a positive whole number; got ${String(card?.contextWindow)}`);
  }
  const reserve = budget.maxOutputTokens ?? 0;
  assertCount('maxOutputTokens', reserve);
  return {
    limit: Math.floor(card.contextWindow * policy.triggerRatio),
    overhead: estimateTextTokens(budget.systemText ?? '') + estimateToolsTokens(budget.tools ?? []),
    reserve,
  };
}

/** Whether a request of `inputTokens` (messages plus overhead) leaves room for the reply within the limit. */
export function fits(budget: Budget, inputTokens: number): boolean {
  return inputTokens + budget.reserve <= budget.limit;
}

/**
 * Whether the next call with `messages` would cross the trigger. No policy means compaction is
 * disabled, so the answer is always false.
 */
export function shouldCompact(
  messages: readonly Turn[],
  modelCard: ModelCard,
  policy: CompactionPolicy | undefined,
  budget?: CompactionBudget,
): boolean {
  if (policy === undefined) return false;
  const resolved = resolveBudget(modelCard, resolveCompactionPolicy(policy), budget);
  return !fits(resolved, resolved.overhead + estimateContextTokens(messages));
}
