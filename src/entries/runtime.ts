// The `indusagi/runtime` entry: the vendor-free runtime, plus `createAgent`, the conductor with Claude
// as its default model (wired in src/providers/anthropic/create-agent.ts, the one place that does).
export * from '../runtime/index.js';
export { createAgent } from '../providers/anthropic/create-agent.js';
export type { AgentDeps, AnthropicAgentConfig } from '../providers/anthropic/create-agent.js';
