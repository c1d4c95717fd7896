/** When to compact history. Omit `AgentConfig.compaction` to disable automatic compaction. */
export type CompactionPolicy = {
  /** Compact once the next call's estimated input reaches this share of the window. Default 0.8. */
  triggerRatio?: number;
  /** Turns always kept verbatim at the end of the history. Default 8. */
  keepRecent?: number;
};
