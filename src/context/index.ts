// The context-budget layer: one manager over sources (memory, lazy tools, your own) and history.
export { createContextManager } from './manager.js';
export { memorySource } from './memory-source.js';
export { lazyToolSource } from './lazy-tool-source.js';
export { workingMemory } from './working-memory.js';
export type { WorkingMemoryParts } from './working-memory.js';
export { ContextInputError, ContextSourceError, WorkingMemoryUpdateError } from './errors.js';
export type {
  Budget,
  ContextTurn,
  CompletedTurn,
  ContextSource,
  ContextHistory,
  ContextManager,
  ContextManagerOptions,
  PreparedContext,
  HandledCall,
  Loaded,
  SourceEvent,
  SourceAnswer,
  SkippedSelection,
  MemorySourceOptions,
  LazyToolSourceOptions,
  WorkingMemoryOptions,
} from './types.js';
