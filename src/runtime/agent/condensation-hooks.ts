import type { CompactionPolicy } from '../contract/compaction.js';
import type { ModelCard, ModelInvoker, ModelTool, ModelUsage } from '../contract/model.js';
import type { RunLedger } from '../ledger/ledger.js';
import { Condenser } from '../compaction/condenser.js';
import type { CondenseResult } from '../compaction/condense.js';
import { isPromptTooLongError, reportedPromptTokens } from '../compaction/prompt-too-long.js';
import type { LoopHooks } from '../loop/types.js';
import type { ContextTurnSending } from './context-turn.js';
import type { Turn } from '../contract/turn.js';
import type { RunEvent } from '../contract/events.js';
import { ContextWindowExceededError } from '../loop/errors.js';

export type CondensationWiring = {
  card: ModelCard;
  policy: CompactionPolicy;
  invokeModel: ModelInvoker;
  system?: string;
  tools: readonly ModelTool[];
  maxOutputTokens: number;
  ledger: RunLedger;
  /** Where the summarizer's token usage goes (the current run's totals), and that of a reply cut off by a full window. */
  addUsage(usage: ModelUsage): void;
  /**
   * What the next call sends besides the messages when that is not `system` and `tools`: a context
   * manager's turn (its system text, recalled memory included, and its tool list). Read before every
   * decision, so all of it counts against the same budget as the history.
   */
  sending?: () => ContextTurnSending | undefined;
  /** Appended to every summary turn (what the model can do about the turns it replaced). */
  summaryNote?: string;
  /** The session's node ids of `turns`, for the `compacted` event; undefined when the session has none. */
  nodeIdsOf?: (turns: readonly Turn[]) => string[] | undefined;
};

export type CondensationHooks = Required<Pick<LoopHooks, 'beforeModelCall' | 'afterModelCall' | 'recoverModelCall'>> & {
  /**
   * Condenses `messages` when they would not fit beside `sending` (a context turn being prepared,
   * before its first call); returns them unchanged when they fit.
   */
  fit(messages: readonly Turn[], sending: ContextTurnSending, signal: AbortSignal): Promise<readonly Turn[]>;
  /** Condenses `messages` whatever their size (`agent.condense()`); null when nothing can be dropped. */
  condenseNow(messages: readonly Turn[], signal: AbortSignal): Promise<{ messages: readonly Turn[]; compacted: CompactedEvent } | null>;
};

type CompactedEvent = Extract<RunEvent, { kind: 'compacted' }>;

/**
 * `AgentConfig.compaction` as loop hooks, per docs/condensation.md: before every model call the
 * agent's one `Condenser` decides and, when needed, condenses (publishing `compacted`); after each
 * reply it calibrates from the reported prompt size; when the API still says the prompt is too long
 * (the 400, or stop reason `model_context_window_exceeded`), it condenses once more, forced, and the
 * call is retried once.
 */
export function condensationHooks(wiring: CondensationWiring): CondensationHooks {
  const condenser = new Condenser({
    card: wiring.card,
    policy: wiring.policy,
    invokeModel: wiring.invokeModel,
    systemText: wiring.system,
    tools: wiring.tools,
    maxOutputTokens: wiring.maxOutputTokens,
    summaryNote: wiring.summaryNote,
  });
  const announce = (result: CondenseResult, context: readonly Turn[]): CompactedEvent => {
    if (result.usage) wiring.addUsage(result.usage);
    const compacted: CompactedEvent = {
      kind: 'compacted',
      removed: result.removed,
      summary: result.summary,
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
    };
    const dropped = wiring.nodeIdsOf?.(context.slice(0, result.keptFrom));
    if (dropped !== undefined) compacted.dropped = dropped;
    wiring.ledger.publish(compacted);
    return compacted;
  };
  const adopt = (result: CondenseResult, context: readonly Turn[]) => {
    announce(result, context);
    return result.messages;
  };
  const stable: ContextTurnSending = { system: wiring.system, tools: wiring.tools };
  let counted = stable;
  const condenseToFit = async (context: readonly Turn[], sending: ContextTurnSending, signal: AbortSignal) => {
    if (sending.system !== counted.system || sending.tools !== counted.tools) {
      condenser.setOverhead({ systemText: sending.system, tools: sending.tools });
      counted = sending;
    }
    if (!condenser.plan(context).shouldCompact) return context;
    const result = await condenser.condense(context, signal);
    return result === null ? context : adopt(result, context);
  };
  return {
    beforeModelCall: (context, signal) => condenseToFit(context, wiring.sending?.() ?? stable, signal),
    fit: condenseToFit,
    async condenseNow(context, signal) {
      const result = await condenser.condense(context, signal, { force: true, keepAllRecent: true });
      return result === null ? null : { messages: result.messages, compacted: announce(result, context) };
    },
    afterModelCall(reply, sent) {
      const usage = reply.usage;
      if (usage) condenser.observeUsage(sent.context, usage.inputTokens + usage.cacheWriteTokens + usage.cacheReadTokens);
    },
    async recoverModelCall(error, context, signal) {
      // Both forms of "the prompt is too long": the 400, and a reply stopped by a full window.
      const windowFull = ContextWindowExceededError.isInstance(error);
      if (!windowFull && !isPromptTooLongError(error)) return undefined;
      const reported = windowFull ? error.promptTokens : reportedPromptTokens(error);
      if (reported !== undefined) condenser.observeUsage(context, reported);
      // The cut-off reply was billed though it is not kept: count it with the condensation it causes.
      if (windowFull && error.reply.usage) wiring.addUsage(error.reply.usage);
      const result = await condenser.condense(context, signal, { force: true });
      return result === null ? undefined : adopt(result, context);
    },
  };
}
