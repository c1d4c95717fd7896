// The one model-and-tool loop and what it is made of; the conductor (`createConductor`) drives it.
export { runLoop, settleOpenBatch } from './run-loop.js';
export { defineLoopTools } from './tools.js';
export type { LoopToolsSource } from './tools.js';
export {
  openBatch,
  pendingApprovalsOf,
  openBatchStanding,
  callStanding,
  nestedApprovals,
  lastAssistantText,
  lastUserText,
} from './batch.js';
export {
  RunFault,
  RunAbortedError,
  MaxStepsError,
  ModelCallError,
  PromptTooLongError,
  ContextWindowExceededError,
  BudgetExceededError,
  AgentDepthError,
  faultKindOf,
} from './errors.js';
export { ABORTED_RESULT, INTERNAL_ERROR, INTERRUPTED_RESULT } from './tool-call.js';
export { rejectionMessage } from './run-tools.js';
export { applyControls } from './controls.js';
export { parsePartialJson, MAX_PARTIAL_JSON_DEPTH } from './partial-json.js';
export type { PartialJson } from './partial-json.js';
export type { RunControls } from './controls.js';
export type { LoopInput, LoopOutcome, LoopEvent, LoopDurability, LoopTools, LoopBudget, ApprovalDecision, ContextView } from './types.js';
