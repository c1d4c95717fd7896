// Compaction: deciding when history must shrink, where it may be cut, and replacing the oldest
// turns with one summary turn. `Compactor` is the incremental form the conductor calls per model call.
export {
  estimateContextTokens,
  estimateTurnTokens,
  estimateTextTokens,
  estimateToolsTokens,
  CHARS_PER_TOKEN,
  TURN_SURCHARGE_TOKENS,
} from './estimate.js';
export { DEFAULT_TRIGGER_RATIO, DEFAULT_KEEP_RECENT, resolveCompactionPolicy } from './policy.js';
export type { ResolvedCompactionPolicy } from './policy.js';
export { shouldCompact } from './budget.js';
export type { CompactionBudget } from './budget.js';
export { findCutPoint, legalCuts } from './cut-point.js';
export { summarize, buildSummaryRequest, DEFAULT_SUMMARY_MAX_TOKENS } from './summarize.js';
export type { SummarizeOptions } from './summarize.js';
export { isSummaryTurn, makeSummaryTurn, summaryBody } from './summary-turn.js';
export { TOOL_INPUT_CLIP_CHARS, TOOL_RESULT_CLIP_CHARS } from './transcript.js';
export { compact } from './compact.js';
export type { CompactOptions } from './compact.js';
export type { CompactionResult, DiscardedSummary } from './compact-at.js';
export { Compactor } from './compactor.js';
export type { CompactorOptions, CompactionPlan, CompactorCallOptions } from './compactor.js';
export { isPromptTooLongError, reportedPromptTokens } from './prompt-too-long.js';
export { CompactionInputError, ContextOverflowError, SummarizerError } from './errors.js';
