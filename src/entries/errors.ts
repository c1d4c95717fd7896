// The `indusagi/errors` entry: every error the vendor-free package throws, in one place, for `catch`
// blocks and `instanceof`-free checks (`SomeError.isInstance(e)` works across copies of the package).
// Each error also stays with its concern's entry; a provider's errors live in its own entry.
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
export { AgentToolError } from '../agents/errors.js';
export * from '../runtime/compaction/errors.js';
export * from '../runtime/guardrails/errors.js';
export * from '../runtime/models/errors.js';
export * from '../runtime/store/errors.js';
export { ToolError, ToolInputError, ToolNameCollisionError } from '../runtime/tools/index.js';
export * from '../runtime/tools/errors.js';
export * from '../runtime/usage/errors.js';
export { DuplicateCallIdError, InvalidToolsetError, LazyToolsetInputError, UnknownToolError } from '../tools/index.js';
export * from '../schema/errors.js';
export * from '../context/errors.js';
export { InvalidPartError, InvalidStreamError } from '../parts/index.js';
export * from '../chat/errors.js';
export * from '../transport/errors.js';
export { ChatRequestError } from '../ui-message/index.js';
