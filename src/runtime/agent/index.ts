// The conductor: `createAgent` and what its callers may catch or configure.
export { createAgent } from './create-agent.js';
export { DEFAULT_MAX_STEPS } from './settings.js';
export { AgentClosedError, AgentConfigError, ApprovalsPendingError, ContextReplacementError, InvalidPromptError } from './errors.js';
export { readCondensation } from './condensation.js';
export type { Condensation } from './condensation.js';
