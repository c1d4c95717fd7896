// History recall: the turns compaction took out of the context stay searchable and readable.
export { HistoryIndex } from './history-index.js';
export type { HistoryHit, HistoryLoad, HistoryPage } from './history-index.js';
export { historyTools, HISTORY_NOTE, HISTORY_READ, HISTORY_SEARCH } from './tools.js';
export type { HistoryOptions } from './tools.js';
export { turnText } from './turn-text.js';
