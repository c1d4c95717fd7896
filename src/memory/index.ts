// The public face of `indusagi/memory`: the store interface, the in-process store and the helpers the
// context layer uses. The SQLite store lives behind `indusagi/memory/sqlite` so this entry never loads a
// native module.
export type { MemoryStore, MemoryRecord, RecallOptions } from './types.js';
export { createMemoryStore } from './in-process-store.js';
export { recallMemory } from './recall.js';
export { rememberFacts } from './remember.js';
export { formatMemoryBlock, MEMORY_BLOCK_HEADER } from './format.js';
export { MemoryInputError } from './errors.js';
