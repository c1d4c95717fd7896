import type { CompactionPolicy } from '../contract/compaction.js';
import type { ModelCard, ModelInvoker, ModelTool, ModelUsage } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import type { Compaction, StepInput } from '../contract/step.js';
import { Compactor } from '../compaction/compactor.js';
import type { CompactionResult } from '../compaction/compact-at.js';
import { isPromptTooLongError, reportedPromptTokens } from '../compaction/prompt-too-long.js';
import { ContextWindowExceededError } from '../loop/errors.js';
import { addUsage } from '../usage/sum.js';

/** What each call sends besides the messages: every system text and the tool list. Counted against the same window. */
export type Sending = { system?: string; tools: readonly ModelTool[] };

export type CompactionStepOptions = {
  card: ModelCard;
  policy: CompactionPolicy;
  /** Writes the summaries: the agent's own model. */
  invokeModel: ModelInvoker;
  system?: string;
  /** Every tool the model may see: counted before they show is counted safe. */
  tools: readonly ModelTool[];
  maxOutputTokens: number;
  /** Appended to every summary turn (what the model can do about the turns it replaced). */
  summaryNote?: string;
  /** A summary was written but not used (it would not have made the context smaller): its call was billed all the same. */
  onDiscarded?: (usage: ModelUsage) => void;
};

/** The agent's compaction as a producer of the per-step hook: one `Compactor` per agent, so its calibration lasts. */
export interface CompactionStep {
  /**
   * Before a call: calibrates from the previous reply's reported prompt size, then compacts when the
   * call would not fit beside `sending`. With `step.failure` (the API said the prompt is too long, or a
   * reply was cut off by a full window) it compacts once more, forced. Undefined: nothing to do.
   */
  decide(step: StepInput, sending?: Sending): Promise<Compaction | undefined>;
  /** `agent.condense()`: compacts whatever the size, keeping every recent turn; null when nothing can be dropped. */
  compactNow(messages: readonly Turn[], signal: AbortSignal): Promise<Compaction | null>;
}

/**
 * `AgentConfig.compaction` as a step producer, per docs/compaction.md. Every decision is typed: the
 * summary turn, where the kept tail starts, what the summarizer cost (and a reply a full window cut
 * off, billed with the compaction it caused) and the token estimates around it.
 */
export function compactionStep(options: CompactionStepOptions): CompactionStep {
  const compactor = new Compactor({
    card: options.card,
    policy: options.policy,
    invokeModel: options.invokeModel,
    systemText: options.system,
    tools: options.tools,
    maxOutputTokens: options.maxOutputTokens,
    summaryNote: options.summaryNote,
    onDiscarded: options.onDiscarded === undefined ? undefined : (discarded) => options.onDiscarded!(discarded.usage),
  });
  const stable: Sending = { system: options.system, tools: options.tools };
  let counted = stable;
  const countOverhead = (sending: Sending): void => {
    if (sending.system === counted.system && sending.tools === counted.tools) return;
    compactor.setOverhead({ systemText: sending.system, tools: sending.tools });
    counted = sending;
  };

  return {
    async decide(step, sending = stable) {
      const usage = step.previous?.reply.usage;
      if (usage !== undefined && step.failure === undefined) {
        compactor.observeUsage(step.messages, usage.inputTokens + usage.cacheWriteTokens + usage.cacheReadTokens, step.previous!.sentTurns);
      }
      countOverhead(sending);
      if (step.failure === undefined) {
        if (!compactor.plan(step.messages).shouldCompact) return undefined;
        const result = await compactor.compact(step.messages, step.signal);
        return result === null ? undefined : compactionOf(result);
      }
      const error = step.failure;
      // Both forms of "the prompt is too long": the 400, and a reply stopped by a full window.
      const windowFull = ContextWindowExceededError.isInstance(error);
      if (!windowFull && !isPromptTooLongError(error)) return undefined;
      const reported = windowFull ? error.promptTokens : reportedPromptTokens(error);
      if (reported !== undefined) compactor.observeUsage(step.messages, reported);
      const result = await compactor.compact(step.messages, step.signal, { force: true });
      if (result === null) return undefined;
      // The cut-off reply was billed though it is not kept: it counts with the compaction it caused.
      return compactionOf(result, windowFull ? error.reply.usage : undefined);
    },
    async compactNow(messages, signal) {
      const result = await compactor.compact(messages, signal, { force: true, keepAllRecent: true });
      return result === null ? null : compactionOf(result);
    },
  };
}

function compactionOf(result: CompactionResult, alsoBilled?: ModelUsage): Compaction {
  const usage = { ...result.usage };
  if (alsoBilled !== undefined) addUsage(usage, alsoBilled);
  return {
    summary: result.summaryTurn,
    keptFrom: result.keptFrom,
    usage,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
  };
}
