// The front door, `indusagi`: the conductor, its starter vocabulary, the part stream a UI reads, and the
// context layer (memory, lazy tools). Everything else lives in an entry named for its concern (Hono's
// model): indusagi/runtime, /store, /compaction, /models, /tools, /context, /guardrails, /parts,
// /transport, /ui-message, /schema, /errors, /workspace, and the providers' own entries. Each name here is
// a starter that repeats a name of its home entry (one home per name; tests/entries/front-door.test.ts).
export { createAgent, defineAgent } from './providers/anthropic/create-agent.js';
export type { AgentDeps } from './providers/anthropic/create-agent.js';
export { Run } from './runtime/agent/index.js';
export type { Agent, AgentConfig, AgentDefinition } from './runtime/agent/index.js';
export type {
  Turn,
  Block,
  PromptBlock,
  RunEvent,
  RunSnapshot,
  ModelInvoker,
  ModelCard,
  PrepareStep,
  ToolDefinition,
  ToolContext,
  PendingApproval,
} from './runtime/contract/index.js';
export { RunFault } from './runtime/loop/index.js';
export { IndusagiError } from './errors/index.js';
export { SessionStore, MemorySessionStore } from './runtime/store/index.js';
export type { SessionStoreLike } from './runtime/store/index.js';
export { ToolError } from './runtime/tools/index.js';
export { tool, toToolset, mergeToolsets, lazyToolset } from './tools/index.js';
export type { Toolset } from './tools/index.js';
export { createContextManager, memorySource, lazyToolSource } from './context/index.js';
export type { ContextManager } from './context/index.js';
export type { MemoryStore } from './memory/types.js';
export { agentRunParts } from './parts/index.js';
export type { AgentPart, AgentTextPart, AgentToolPart, AgentMemoryPart, AgentContextPart } from './parts/index.js';
