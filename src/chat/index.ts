// The public face of `indusagi/chat`: the framework-free chat state behind `useAssistant`, for
// Vue, Svelte, plain DOM or any other UI layer.
export { AssistantStore, createAssistantStore } from './store.js';
export { appendPartToReply, applyPartToThread, findToolPart } from './thread.js';
export { itemsFromTurns, turnsFromItems } from './turns.js';
export { assertAssistantItems } from './validate.js';
export { InvalidItemError, InvalidInputError, AssistantBusyError } from './errors.js';
export type {
  AssistantItem,
  AssistantUserItem,
  AssistantReplyItem,
  AssistantStream,
  AssistantStreamInfo,
  ContinuationStream,
  AssistantStoreOptions,
  AssistantState,
} from './types.js';
// The part stream's names live in indusagi/parts (`assertAgentPart`, `InvalidPartError`, ...) and its
// browser-side reader in indusagi/transport (`fetchParts`, `readParts`, which load nothing node-only): one home per name.
