// The public face of `indusagi`: everything in `indusagi/runtime`, plus tools, schemas, parts, context, chat,
// the part-stream transport and the AI SDK UI message stream.
export * from './entries/runtime.js';
export * from './parts/index.js';
export type { MemoryStore, MemoryRecord, RecallOptions } from './memory/types.js';
export * from './tools/index.js';
export * from './schema/index.js';
export * from './context/index.js';
export * from './chat/index.js';
export * from './transport/index.js';
export * from './ui-message/index.js';
// The indusagi command's own tools (files inside one workspace folder, the clock, memory), for apps that want the same.
export { Workspace, builtInTools } from './cli/tools/index.js';
export type { BuiltInToolOptions } from './cli/tools/index.js';
