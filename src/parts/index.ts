// The parts an agent run streams to a UI (`AgentPart`), the one translation from run events to them,
// and their validation: shared by `runAgent`, the part-stream transport and the chat store.
export type {
  AgentPart,
  AgentTextPart,
  AgentToolPart,
  AgentMemoryPart,
  AgentContextPart,
  AgentOutputPart,
  AgentGuardrailPart,
  AgentNestedPart,
  AgentOwnPart,
} from './types.js';
export { agentRunEvents, agentRunParts, partOfEvent, nestedApprovalId } from './agent-run.js';
export { PartQueue } from './queue.js';
export { assertAgentPart } from './validate.js';
export { InvalidPartError, InvalidStreamError } from './errors.js';
