// Token usage and what it costs: summing calls, checking stored counts, estimating USD from model cards.
export { zeroUsage, addUsage, sumUsage } from './sum.js';
export { usageProblem, assertUsage } from './check.js';
export { estimateCost } from './cost.js';
export type { CostEstimate } from './cost.js';
export { sessionCost, UNKNOWN_MODEL } from './session-cost.js';
export type { SessionCost, ModelCost } from './session-cost.js';
export { describeUsage, describeCost } from './format.js';
export { InvalidUsageError } from './errors.js';
