export * from './turn.js';
export * from './session.js';
export * from './model.js';
export * from './tool.js';
export * from './events.js';
export * from './agent.js';
