/** When to condense history. Omit `AgentConfig.compaction` to disable automatic condensation. */
export type CompactionPolicy = {
  /** Condense once the next call's estimated input reaches this share of the window. Default 0.8. */
  triggerRatio?: number;
  /** Turns always kept verbatim at the end of the history. Default 8. */
  keepRecent?: number;
};
