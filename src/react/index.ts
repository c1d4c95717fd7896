// The public face of `indusagi/react` (react is an optional peer dependency). The hook is a thin
// adapter over the framework-free store in `indusagi/chat`, which also holds the chat's item and stream
// types (`AssistantItem`, `AssistantStream`, ...): one home per name.
export { useAssistant } from './use-assistant.js';
export type { UseAssistantOptions, UseAssistant } from './use-assistant.js';
