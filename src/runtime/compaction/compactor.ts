import type { CompactionPolicy } from '../contract/compaction.js';
import type { ModelCard, ModelInvoker, ModelTool } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import { fits, resolveBudget, type Budget } from './budget.js';
import { compactAt, type CompactionResult, type DiscardedSummary } from './compact-at.js';
import { findCutPoint, shrinkingCuts } from './cut-point.js';
import { estimateTextTokens, estimateToolsTokens, estimateTurnTokens } from './estimate.js';
import { assertCount, resolveCompactionPolicy, type ResolvedCompactionPolicy } from './policy.js';
import { CompactionInputError } from './errors.js';

export type CompactorOptions = {
  card: ModelCard;
  policy: CompactionPolicy;
  /** Writes the summaries; normally the agent's own invoker and model. */
  invokeModel: ModelInvoker;
  /** The system prompt sent with every call; counted in every estimate. */
  systemText?: string;
  /** The tool definitions sent with every call; counted in every estimate. */
  tools?: readonly ModelTool[];
  /** The `max_tokens` every call requests, reserved in the budget. Default 0. */
  maxOutputTokens?: number;
  /** Preferred cap on a summary, in tokens. Default 4096. */
  summaryMaxTokens?: number;
  /** Appended to every summary turn: what the model can do about the turns a summary replaced. */
  summaryNote?: string;
  /**
   * Told when a summary was written but not used because it was no smaller than the turns it would
   * replace (`compact` then returns null): its call was billed all the same.
   */
  onDiscarded?: (discarded: DiscardedSummary) => void;
};

export type CompactionPlan = {
  /** The next call would not fit: estimated input plus the output reserve exceeds window × triggerRatio. */
  shouldCompact: boolean;
  /** Estimated input tokens of the next call: messages, system prompt and tools. */
  estimatedTokens: number;
};

export type CompactorCallOptions = {
  /** Compact even though the estimate says the context fits (the API said otherwise, or a user asked). */
  force?: boolean;
  /**
   * Never keep fewer than `keepRecent` turns: return null when that leaves nothing to drop. For a
   * compaction someone asked for; one the window forces may cut into them.
   */
  keepAllRecent?: boolean;
};

/**
 * The conductor's compaction state, one per agent. It remembers each turn's estimate, so deciding
 * before a model call costs only the turns added since the last call, however long the history.
 *
 * Histories are recognised by the identity of their turn objects: a call whose first turn and last
 * known turn are the same objects as last time is an extension (the conductor appends between
 * calls); anything else (a resume, a compacted or replaced context) is estimated afresh.
 */
export class Compactor {
  readonly #card: ModelCard;
  readonly #policy: ResolvedCompactionPolicy;
  #budget: Budget;
  readonly #invokeModel: ModelInvoker;
  readonly #summaryMaxTokens: number | undefined;
  readonly #summaryNote: string | undefined;
  readonly #onDiscarded: ((discarded: DiscardedSummary) => void) | undefined;

  #turns: Turn[] = [];
  /** `#cumulative[i]`: estimated tokens of `#turns[0..i)`. */
  #cumulative: number[] = [0];
  /** The last reported input size, how many of `#turns` it covered, and the overhead estimated for it then. */
  #anchor: { count: number; inputTokens: number; overhead: number } | null = null;

  constructor(options: CompactorOptions) {
    this.#card = options.card;
    this.#policy = resolveCompactionPolicy(options.policy);
    this.#budget = resolveBudget(options.card, this.#policy, options);
    this.#invokeModel = options.invokeModel;
    this.#summaryMaxTokens = options.summaryMaxTokens;
    this.#summaryNote = options.summaryNote;
    this.#onDiscarded = options.onDiscarded;
    if (this.#summaryMaxTokens !== undefined) assertCount('summaryMaxTokens', this.#summaryMaxTokens);
  }

  /** Whether the next call with `messages` needs compacting, and its estimated input. */
  plan(messages: readonly Turn[]): CompactionPlan {
    this.#track(messages);
    const estimatedTokens = this.#estimate();
    return { shouldCompact: !fits(this.#budget, estimatedTokens), estimatedTokens };
  }

  /**
   * Calibrates from the API's count: until the history changes, estimates start from `inputTokens`
   * and add only the heuristic estimate of turns appended after `messagesSent`. Pass the turns as
   * handed to `plan` (the same objects), and the whole prompt size: `input_tokens` plus cache-read
   * and cache-write tokens, which the API reports separately. `sentTurns`: when `messagesSent` has
   * grown since the call, how many of its first turns the call sent (no copy of the prefix needed).
   */
  observeUsage(messagesSent: readonly Turn[], inputTokens: number, sentTurns: number = messagesSent.length): void {
    assertCount('inputTokens', inputTokens);
    assertCount('sentTurns', sentTurns);
    if (sentTurns > messagesSent.length)
      throw new CompactionInputError(`sentTurns (${sentTurns}) is more than the ${messagesSent.length} turns given`);
    if (!this.#isTrackedPrefix(messagesSent)) this.#track(messagesSent);
    this.#anchor = { count: sentTurns, inputTokens, overhead: this.#budget.overhead };
  }

  /**
   * Counts `sending` as what every call sends besides the messages from now on, in place of the
   * constructor's `systemText` and `tools`: a context manager changes both from turn to turn (recalled
   * memory) and within one (tools loaded by a search). A calibration taken before stays in use, moved
   * by the estimated change, so a recalled block that is gone no longer counts and a new one does.
   */
  setOverhead(sending: { systemText?: string; tools?: readonly ModelTool[] }): void {
    this.#budget = { ...this.#budget, overhead: estimateTextTokens(sending.systemText ?? '') + estimateToolsTokens(sending.tools ?? []) };
  }

  /**
   * Replaces the oldest turns with a summary so the next call fits. Returns null when the context
   * already fits (unless `force`), when no legal cut exists, or when the summary came out no smaller
   * than the turns it would replace (a compaction never makes the context larger). Keeps `keepRecent` turns when they
   * fit beside a summary, fewer (down to the last turn or last complete call/result pair) when not.
   * Throws `ContextOverflowError` when even that cannot fit and `SummarizerError` when the summary
   * call fails; in both cases `messages` is untouched and nothing is lost, so the caller may fault or retry.
   */
  async compact(messages: readonly Turn[], signal?: AbortSignal, opts: CompactorCallOptions = {}): Promise<CompactionResult | null> {
    this.#track(messages);
    const tokensBefore = this.#estimate();
    if (!opts.force && fits(this.#budget, tokensBefore)) return null;
    const cuts = opts.keepAllRecent
      ? atLeast(findCutPoint(messages, this.#policy.keepRecent))
      : shrinkingCuts(messages, this.#policy.keepRecent);
    if (cuts.length === 0) return null;
    const result = await compactAt(messages, this.#cumulative, cuts, tokensBefore, {
      card: this.#card,
      budget: this.#budget,
      invokeModel: this.#invokeModel,
      summaryMaxTokens: this.#summaryMaxTokens,
      summaryNote: this.#summaryNote,
      onDiscarded: this.#onDiscarded,
      signal,
    });
    if (result !== null) this.#adopt(result);
    return result;
  }

  #track(messages: readonly Turn[]): void {
    const known = this.#turns.length;
    const extends_ =
      messages.length >= known && (known === 0 || (messages[0] === this.#turns[0] && messages[known - 1] === this.#turns[known - 1]));
    if (!extends_) this.#reset();
    for (let i = this.#turns.length; i < messages.length; i++) {
      const turn = messages[i];
      const cost = estimateTurnTokens(turn);
      this.#turns.push(turn);
      this.#cumulative.push(this.#cumulative[i] + cost);
    }
  }

  #isTrackedPrefix(messages: readonly Turn[]): boolean {
    const n = messages.length;
    return n > 0 && n <= this.#turns.length && messages[0] === this.#turns[0] && messages[n - 1] === this.#turns[n - 1];
  }

  #estimate(): number {
    const total = this.#cumulative[this.#turns.length];
    if (this.#anchor === null) return this.#budget.overhead + total;
    return this.#anchor.inputTokens + this.#budget.overhead - this.#anchor.overhead + total - this.#cumulative[this.#anchor.count];
  }

  /** Continues from the compacted context, reusing the kept turns' estimates. */
  #adopt(result: CompactionResult): void {
    const kept = this.#cumulative;
    const keptFrom = result.keptFrom;
    this.#turns = result.messages.slice();
    this.#cumulative = [0, estimateTurnTokens(result.summaryTurn)];
    for (let i = keptFrom; i < kept.length - 1; i++) {
      this.#cumulative.push(this.#cumulative[this.#cumulative.length - 1] + kept[i + 1] - kept[i]);
    }
    this.#anchor = null;
  }

  #reset(): void {
    this.#turns = [];
    this.#cumulative = [0];
    this.#anchor = null;
  }
}

// The one cut that keeps every recent turn, when there is one.
function atLeast(cut: number): number[] {
  return cut === 0 ? [] : [cut];
}
