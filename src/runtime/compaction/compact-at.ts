import type { ModelCard, ModelInvoker, ModelUsage } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import { fits, type Budget } from './budget.js';
import { ContextOverflowError } from './errors.js';
import { estimateTurnTokens } from './estimate.js';
import { DEFAULT_SUMMARY_MAX_TOKENS, requestSummary } from './summarize.js';
import { makeSummaryTurn } from './summary-turn.js';
import { addUsage, zeroUsage } from '../usage/sum.js';

/** What one compaction did; `messages` is what the next model call should be sent. */
export type CompactionResult = {
  /** `[summaryTurn, ...tail]`; the tail turns are the caller's own objects, unchanged. */
  messages: Turn[];
  summaryTurn: Turn;
  /** How many turns of the input the summary replaced (equals `keptFrom`). */
  removed: number;
  /** Index in the input of the first kept turn; `input.length` when none is kept. */
  keptFrom: number;
  /** Estimated input tokens before (calibrated when usage was observed) and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** The summary body, without the `[condensed earlier context]` prefix. */
  summary: string;
  /** Tokens the summarizer call(s) reported, summed. */
  usage: ModelUsage;
};

/**
 * A summary that came out no smaller (by the estimate) than the turns it would have replaced: it is
 * not used, since a compaction must never make the context larger. The call was billed all the same.
 */
export type DiscardedSummary = {
  summary: string;
  /** Estimated tokens of the summary turn, its frame and note included. */
  summaryTokens: number;
  /** Estimated tokens of the turns it would have replaced. */
  replacedTokens: number;
  /** Tokens the summarizer call(s) reported, summed. */
  usage: ModelUsage;
};

export type CompactAtContext = {
  card: ModelCard;
  budget: Budget;
  invokeModel: ModelInvoker;
  /** Preferred cap on a summary, in tokens. Default 4096. */
  summaryMaxTokens?: number;
  /** Appended to every summary turn, after the summary (see `makeSummaryTurn`). */
  summaryNote?: string;
  /** Told about a summary that was written but not used (see `DiscardedSummary`), e.g. to bill it. */
  onDiscarded?: (discarded: DiscardedSummary) => void;
  signal?: AbortSignal;
};

/** Below this a summary cannot hold goal, progress and identifiers; overflow is the honest answer. */
const SUMMARY_MIN_TOKENS = 256;
/**
 * Prose runs about 4.5 characters a token, which the estimate counts as about 1.125 tokens; asking the
 * summarizer for 80% of the room keeps its summary inside the room by the estimate's own measure.
 */
const SUMMARY_ROOM_SHARE = 0.8;

/**
 * Compacts `messages` at the first of `cuts` (legal, ascending, non-empty) whose kept tail leaves
 * room for a full summary, or else at the last cut if it leaves room for a short one. A summary
 * that still comes out too long is folded forward into a later cut (fewer kept turns), never looped
 * on. `cumulative[i]` is the estimated tokens of `messages[0..i)`.
 *
 * Returns null, and tells `onDiscarded`, when the summary is not smaller than the turns it would
 * replace: the context already fits then, and replacing them would only make it larger (a short
 * history compacted on request, a summarizer that writes at length). Both sides are the estimate's,
 * so the rule holds whatever the model's tokenizer counts; the reported `tokensAfter` is put on the
 * scale of `tokensBefore` (see `onScaleOf`).
 * Throws `ContextOverflowError` when no cut can fit, before any model call if that is already clear.
 */
export async function compactAt(
  messages: readonly Turn[],
  cumulative: readonly number[],
  cuts: readonly number[],
  tokensBefore: number,
  ctx: CompactAtContext,
): Promise<CompactionResult | null> {
  const { budget } = ctx;
  const frameTokens = estimateTurnTokens(makeSummaryTurn('', ctx.summaryNote));
  const total = cumulative[messages.length];
  const tail = (cut: number) => total - cumulative[cut];
  const room = (cut: number) => budget.limit - budget.reserve - budget.overhead - tail(cut) - frameTokens;
  const preferred = Math.min(ctx.summaryMaxTokens ?? DEFAULT_SUMMARY_MAX_TOKENS, ctx.card.maxOutputTokens, Math.floor(budget.limit / 4));
  const capAt = (cut: number) => Math.min(preferred, Math.floor(room(cut) * SUMMARY_ROOM_SHARE));
  const lastCut = cuts[cuts.length - 1];

  let index = cuts.findIndex((cut) => capAt(cut) >= preferred);
  if (index === -1 && capAt(lastCut) >= Math.min(preferred, SUMMARY_MIN_TOKENS)) index = cuts.length - 1;
  if (index === -1) {
    throw overflow(
      budget,
      budget.overhead + frameTokens + Math.min(preferred, SUMMARY_MIN_TOKENS) + tail(lastCut),
      messages.length - lastCut,
    );
  }

  const usage = zeroUsage();
  let carried: Turn | null = null;
  let coveredTo = 0;
  for (;;) {
    const cut = cuts[index];
    const cap = capAt(cut);
    const dropped = carried === null ? messages.slice(0, cut) : [carried, ...messages.slice(coveredTo, cut)];
    const reply = await requestSummary(dropped, ctx.invokeModel, {
      model: ctx.card.id,
      maxOutputTokens: cap,
      inputBudgetTokens: budget.limit - cap,
      signal: ctx.signal,
    });
    if (reply.usage) addUsage(usage, reply.usage);
    const summaryTurn = makeSummaryTurn(reply.text, ctx.summaryNote);
    const summaryTokens = estimateTurnTokens(summaryTurn);
    const estimatedAfter = budget.overhead + summaryTokens + tail(cut);
    if (fits(budget, estimatedAfter)) {
      if (summaryTokens >= cumulative[cut]) {
        ctx.onDiscarded?.({ summary: reply.text, summaryTokens, replacedTokens: cumulative[cut], usage });
        return null;
      }
      return {
        messages: [summaryTurn, ...messages.slice(cut)],
        summaryTurn,
        removed: cut,
        keptFrom: cut,
        tokensBefore,
        tokensAfter: onScaleOf(tokensBefore, budget.overhead + total, estimatedAfter),
        summary: reply.text,
        usage,
      };
    }
    // Longer than its room: keep fewer turns, folding this summary into the next one.
    carried = summaryTurn;
    coveredTo = cut;
    const previous = index;
    index = cuts.findIndex((c, i) => i > previous && fits(budget, budget.overhead + summaryTokens + tail(c)));
    if (index === -1) throw overflow(budget, estimatedAfter, messages.length - cut);
  }
}

/**
 * `estimatedAfter` on the scale of `tokensBefore`, which is calibrated from the API's count once one was
 * observed (the estimate alone otherwise): reported sizes then shrink exactly when the context does,
 * whichever way the heuristic and the model's tokenizer disagree.
 */
function onScaleOf(tokensBefore: number, estimatedBefore: number, estimatedAfter: number): number {
  return tokensBefore === estimatedBefore || estimatedBefore === 0
    ? estimatedAfter
    : Math.round((tokensBefore * estimatedAfter) / estimatedBefore);
}

function overflow(budget: Budget, inputTokens: number, keptTurns: number): ContextOverflowError {
  const neededTokens = inputTokens + budget.reserve;
  return new ContextOverflowError(
    `the context cannot be compacted to fit: a summary plus the last ${keptTurns} turn(s) that must stay together ` +
      `need about ${neededTokens} tokens (system prompt, tools and ${budget.reserve} reserved for the reply included), ` +
      `over the budget of ${budget.limit}`,
    { neededTokens, limitTokens: budget.limit },
  );
}
