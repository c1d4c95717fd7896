// The public face of `indusagi/chat`: the framework-free chat state behind `useAssistant`, for
// Vue, Svelte, plain DOM or any other UI layer.
export { AssistantStore, createAssistantStore } from './store.js';
export { appendPartToReply, applyPartToThread, findToolPart } from './thread.js';
export { itemsFromTurns, turnsFromItems } from './turns.js';
export { assertAssistantItems } from './validate.js';
export { assertAgentPart } from '../parts/validate.js';
export { InvalidItemError, InvalidInputError, AssistantBusyError } from './errors.js';
export { InvalidPartError, InvalidStreamError } from '../parts/errors.js';
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
// The browser side of the part-stream transport lives here too, so a page can import it without
// pulling in the node-side runtime that the root entry carries.
export { readParts, fetchParts } from '../transport/read.js';
export type { ReadPartsOptions, FetchPartsInit } from '../transport/read.js';
export type { PartFrame, RemoteErrorInfo } from '../transport/frames.js';
export { PartStreamHttpError, PartStreamProtocolError, PartStreamTruncatedError, RemoteStreamError } from '../transport/errors.js';
