// The public face of `indusagi/memory`.
export type { MemoryStore, MemoryRecord, RecallOptions } from './types.js';
