// The `indusagi/condensation` entry: when history must shrink, where it may be cut, the summary that
// replaces the oldest turns, and history recall (the turns condensation took out stay searchable).
export {
  estimateContextTokens,
  estimateTurnTokens,
  shouldCompact,
  findCutPoint,
  summarize,
  compact,
  isSummaryTurn,
  DEFAULT_TRIGGER_RATIO,
  DEFAULT_KEEP_RECENT,
  DEFAULT_SUMMARY_MAX_TOKENS,
  CompactionInputError,
  ContextOverflowError,
  SummarizerError,
} from '../runtime/compaction/index.js';
export type { CompactOptions, CompactionBudget, CondenseResult, DiscardedSummary, SummarizeOptions } from '../runtime/compaction/index.js';
export { CONDENSED_PREFIX } from '../runtime/contract/index.js';
export type { CompactionPolicy, Condensation } from '../runtime/contract/index.js';
export { HistoryIndex, historyTools, turnText, HISTORY_NOTE, HISTORY_READ, HISTORY_SEARCH } from '../runtime/history/index.js';
export type { HistoryHit, HistoryLoad, HistoryOptions, HistoryPage } from '../runtime/history/index.js';
