// The memory commands and the one way the CLI opens a memory store (file or PostgreSQL URL).
export { runMemory } from './command.js';
export { openMemory } from './open.js';
export type { OpenedMemory, OpenMemoryOptions } from './open.js';
export { chooseEmbedding, offlineInstalled } from './embedding.js';
export type { MemoryEmbedding, Resolve } from './embedding.js';
