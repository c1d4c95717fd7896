// The ground floor: the types every layer shares. It imports nothing above itself.
export * from './turn.js';
export * from './session.js';
export * from './model.js';
export * from './tool.js';
export * from './events.js';
export * from './compaction.js';
export * from './step.js';
export * from './context.js';
export * from './limits.js';
export * from './guardrail.js';
