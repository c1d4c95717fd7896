// The public face of `indusagi/memory`: the store interface, the in-process store and the helpers the
// context layer uses. The SQLite and PostgreSQL stores live behind their own entries so this one never
// loads a native module or a database driver.
export type {
  MemoryStore,
  GovernedMemoryStore,
  MemoryRecord,
  RecallOptions,
  SearchOptions,
  SaveOptions,
  ListOptions,
  OwnerOptions,
  MemoryEdit,
  MemoryScope,
  MemoryProvenance,
  WorkingMemory,
  WorkingMemoryStore,
  SetWorkingOptions,
} from './types.js';
export { createMemoryStore } from './in-process-store.js';
export type { MemoryStoreOptions } from './in-process-store.js';
export { EmbedderConfigError, EmbedderOutputError } from './embedder.js';
export type { Embedder } from './embedder.js';
export { offlineEmbedder, OFFLINE_EMBEDDER_PACKAGES } from './offline-embedder.js';
export { recallMemory } from './recall.js';
export { rememberFacts } from './remember.js';
export { learnFacts, FactExtractionError, FACT_SCHEMA } from './learn.js';
export type { LearnOptions } from './learn.js';
export { formatMemoryBlock, MEMORY_BLOCK_HEADER } from './format.js';
export { MemoryInputError, MemoryConflictError, MemoryStoreClosedError, WorkingMemoryConflictError } from './errors.js';
export { MAX_WORKING_LENGTH } from './working/index.js';
export { MAX_TEXT_LENGTH } from './options.js';
