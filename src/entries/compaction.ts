// The `indusagi/compaction` entry: when history must shrink, where it may be cut, the summary that
// replaces the oldest turns, and history recall (the turns compaction took out stay searchable).
// `estimateContextTokens`, `shouldCompact`, `findCutPoint`, `summarize`, `compact` and `CompactionPolicy`
// live in indusagi/runtime (CONTRACT.md's row), compaction's errors in indusagi/errors: one home per name.
export {
  estimateTurnTokens,
  isSummaryTurn,
  DEFAULT_TRIGGER_RATIO,
  DEFAULT_KEEP_RECENT,
  DEFAULT_SUMMARY_MAX_TOKENS,
} from '../runtime/compaction/index.js';
export type {
  CompactOptions,
  CompactionBudget,
  CompactionResult,
  DiscardedSummary,
  SummarizeOptions,
} from '../runtime/compaction/index.js';
export { COMPACTION_PREFIX } from '../runtime/contract/index.js';
export type { Compaction } from '../runtime/contract/index.js';
export { HistoryIndex, historyTools, turnText, HISTORY_NOTE, HISTORY_READ, HISTORY_SEARCH } from '../runtime/history/index.js';
export type { HistoryHit, HistoryLoad, HistoryOptions, HistoryPage } from '../runtime/history/index.js';
