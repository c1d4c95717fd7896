// The vendor-free runtime: contract, ledger, models and routing between them, usage, compaction, store,
// loop and the conductor.
// The `indusagi/runtime` entry adds `createAgent` (this conductor with Claude as its default model).
export * from './contract/index.js';
export * from './ledger/index.js';
export * from './models/index.js';
export * from './routing/index.js';
export * from './usage/index.js';
export * from './compaction/index.js';
export * from './store/index.js';
export * from './loop/index.js';
export * from './agent/index.js';
export * from './guardrails/index.js';
export * from './history/index.js';
export * from '../errors/index.js';
export * from './budget/index.js';
