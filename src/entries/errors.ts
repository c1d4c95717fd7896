// The `indusagi/errors` entry: the errors of the runtime (the conductor, its loop, budget, store,
// compaction, guardrails, models, usage and tools), in one place, for `catch` blocks and
// `instanceof`-free checks (`SomeError.isInstance(e)` works across copies of the package). This is their
// only home (one home per name; the root repeats `ToolError`, `RunFault` and `IndusagiError` as starters).
// An error a concern outside the runtime throws lives in that concern's entry: indusagi/context,
// /tools (the toolset's), /parts, /transport, /chat, /ui-message, /schema, /agents, /memory, /server,
// /mcp, and each provider's in its own.
export { IndusagiError } from '../errors/index.js';
export * from '../runtime/agent/errors.js';
export { OutputValidationError } from '../runtime/agent/index.js';
export {
  RunFault,
  ContextWindowExceededError,
  MaxStepsError,
  ModelCallError,
  PromptTooLongError,
  RunAbortedError,
  BudgetExceededError,
  AgentDepthError,
} from '../runtime/loop/index.js';
export * from '../runtime/budget/errors.js';
export * from '../runtime/compaction/errors.js';
export * from '../runtime/guardrails/errors.js';
export * from '../runtime/models/errors.js';
export * from '../runtime/store/errors.js';
export { ToolError, ToolInputError, ToolNameCollisionError } from '../runtime/tools/index.js';
export * from '../runtime/tools/errors.js';
export * from '../runtime/usage/errors.js';
