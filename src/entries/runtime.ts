// The `indusagi/runtime` entry: the vendor-free runtime, plus `createAgent`, the conductor with Claude
// as its default model (wired in src/providers/anthropic/create-agent.ts, the one place that does, which
// loads `@anthropic-ai/sdk` only on Claude's first call: importing this entry loads no vendor SDK).
export * from '../runtime/index.js';
export { createAgent } from '../providers/anthropic/create-agent.js';
export type { AgentDeps } from '../providers/anthropic/create-agent.js';
export { MissingApiKeyError } from '../providers/anthropic/errors.js';
