// The AI SDK UI message stream protocol, so `useChat` from `@ai-sdk/react` (and what builds on it:
// AI Elements, assistant-ui) drives an indusagi agent. Server side; the page needs only the AI SDK.
export { readChatRequest, ChatRequestError, MAX_CHAT_DECISIONS } from './request.js';
export type { ChatRequest, ChatDecision, ChatTrigger } from './request.js';
export {
  uiMessageChunks,
  uiMessageStreamResponse,
  uiMessageChunkResponse,
  sendUIMessageStream,
  sendUIMessageChunks,
  UI_MESSAGE_STREAM_HEADERS,
} from './stream.js';
export type { ChatAgent, UIMessageChunkSource, UIMessageStreamOptions, UIMessageResponseOptions } from './stream.js';
export { NESTED_TEXT_CAP } from './chunks.js';
export type { UIMessageChunk, AgentDataPart } from './chunks.js';
export { uiMessagesFromTurns } from './messages.js';
export { withAgentParts } from './agent-history.js';
export type { UIMessage, UIMessagePart } from './messages.js';
