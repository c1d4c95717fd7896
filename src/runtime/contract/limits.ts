/**
 * What one run may spend, counted over the whole tree of agents it calls (sub-agents' runs spend from
 * it too). A call that would cross a limit is not made: the run stops with `budget_exceeded` first.
 */
export type RunLimits = {
  /** US dollars at the model cards' list prices; needs prices for every model the tree calls. */
  maxCostUsd?: number;
  /** Tokens billed, input (cache reads and writes included) and output. */
  maxTokens?: number;
  /** Tool calls run (a sub-agent's call counts once, and so does every call the sub-agent makes). */
  maxToolCalls?: number;
  /** Wall-clock time from the run's start: no model or tool call starts after it. */
  maxDurationMs?: number;
};

/** The names of `RunLimits`, in the order they are checked. */
export type LimitName = keyof RunLimits;
