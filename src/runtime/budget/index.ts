// A run's limits (`RunLimits`): checked when the run is asked for, and held by a `RunBudget` that the
// loop asks before every model and tool call; a sub-agent's budget is linked to its caller's.
export { RunBudget, estimateRequestTokens } from './run-budget.js';
export type { BudgetSpent } from './run-budget.js';
export { runLimits, LIMIT_NAMES } from './limits.js';
export { LimitsError, UnpricedModelError } from './errors.js';
