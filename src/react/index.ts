// The public face of `indusagi/react` (react is an optional peer dependency). The hook is a thin
// adapter over the framework-free store in `indusagi/chat`, which also holds the browser-side reader
// for the part-stream transport.
export { useAssistant } from './use-assistant.js';
export type { UseAssistantOptions, UseAssistant } from './use-assistant.js';
export type {
  AssistantItem,
  AssistantUserItem,
  AssistantReplyItem,
  AssistantStream,
  AssistantStreamInfo,
  ContinuationStream,
} from '../chat/types.js';
