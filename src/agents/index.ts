// Agents made of agents: an agent as a tool (`agentTool`), durable and nested in one stream, and
// handoffs of the conversation between agents (`handoff`). One budget, a run's `limits`, covers them all.
export { agentTool, DEFAULT_AGENT_CONCURRENCY, DEFAULT_AGENT_DEPTH } from './agent-tool.js';
export type { AgentToolOptions, AgentToolResult } from './agent-tool.js';
export { handoff } from './handoff.js';
export { speakers } from './speakers.js';
export type { HandoffOptions } from './handoff.js';
export { childSessionId } from './session-id.js';
export { AgentToolError } from './errors.js';
export type { Handoff } from '../runtime/agent/types.js';
export { MAIN_AGENT, transferToolName } from '../runtime/agent/handoffs.js';
// The budget's errors (`BudgetExceededError`, `AgentDepthError`, `LimitsError`, `UnpricedModelError`) live in
// indusagi/errors and `RunLimits` in indusagi/runtime: one home per name.
export { RunBudget } from '../runtime/budget/index.js';
export { WaitingCall } from '../runtime/contract/tool.js';
export type { CallerRun, ResumableTool } from '../runtime/contract/tool.js';
