// The `indusagi/errors` entry: every error the vendor-free package throws, in one place, for `catch`
// blocks and `instanceof`-free checks (`SomeError.isInstance(e)` works across copies of the package).
// Each error also stays with its concern's entry; a provider's errors live in its own entry.
export { IndusagiError } from '../errors/index.js';
export {
  AgentClosedError,
  AgentConfigError,
  ApprovalsPendingError,
  BranchPointError,
  ContextReplacementError,
  InputUnavailableError,
  InvalidInputAnswerError,
  InvalidPromptError,
  ModelControlsError,
  OutputValidationError,
  StepHookError,
  UnknownInputRequestError,
} from '../runtime/agent/index.js';
export {
  RunFault,
  ContextWindowExceededError,
  MaxStepsError,
  ModelCallError,
  PromptTooLongError,
  RunAbortedError,
} from '../runtime/loop/index.js';
export { CompactionInputError, ContextOverflowError, SummarizerError } from '../runtime/compaction/index.js';
export {
  GuardrailDefinitionError,
  GuardrailTripwireTriggered,
  InputGuardrailTripwireTriggered,
  OutputGuardrailTripwireTriggered,
} from '../runtime/guardrails/index.js';
export { ModelCardError, ModelChoiceError, UnsupportedContentError } from '../runtime/models/index.js';
export {
  BrokenCondensationError,
  GraphNotLoadedError,
  InvalidRecordError,
  InvalidSessionIdError,
  InvalidTurnError,
  MissingHistoryError,
  SessionIntegrityError,
  SessionIoError,
  SessionLeaseLostError,
  SessionLockLostError,
  SessionLockedError,
  SessionPathUnsafeError,
  UnknownNodeError,
} from '../runtime/store/index.js';
export { DuplicateToolError, ToolError, ToolInputError, ToolNameCollisionError, UnknownApprovalError } from '../runtime/tools/index.js';
export { InvalidUsageError } from '../runtime/usage/index.js';
export { DuplicateCallIdError, InvalidToolsetError, LazyToolsetInputError, UnknownToolError } from '../tools/index.js';
export { SchemaDefinitionError } from '../schema/index.js';
export { ContextInputError, ContextSourceError } from '../context/index.js';
export { InvalidPartError, InvalidStreamError } from '../parts/index.js';
export { AssistantBusyError, InvalidInputError, InvalidItemError } from '../chat/index.js';
export {
  ClientDisconnectedError,
  PartStreamHttpError,
  PartStreamProtocolError,
  PartStreamTruncatedError,
  RemoteStreamError,
} from '../transport/index.js';
export { ChatRequestError } from '../ui-message/index.js';
