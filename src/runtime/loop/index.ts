// The one model-and-tool loop and what it is made of; `createAgent` and `runAgent` both drive it.
export { runLoop } from './run-loop.js';
export { defineLoopTools } from './tools.js';
export type { LoopToolsSource } from './tools.js';
export { openBatch, pendingApprovalsOf, lastAssistantText, lastUserText } from './batch.js';
export { beginContextTurn } from './context-turn.js';
export type { ContextTurnInput, ContextTurnHandle } from './context-turn.js';
export { RunFault, RunAbortedError, MaxStepsError, ModelCallError, ContextWindowExceededError, faultKindOf } from './errors.js';
export { ABORTED_RESULT, INTERNAL_ERROR } from './tool-call.js';
export { rejectionMessage } from './run-tools.js';
export type {
  LoopInput,
  LoopOutcome,
  LoopEvent,
  LoopHooks,
  LoopTools,
  ToolCallContext,
  ApprovalDecision,
} from './types.js';
