// The `indusagi/runtime` entry: the conductor and the vocabulary it speaks, vendor-free. `createAgent` is
// the conductor with Claude as its default model (wired in src/providers/anthropic/create-agent.ts, which
// loads `@anthropic-ai/sdk` only on Claude's first call: importing this entry loads no vendor SDK).
// Each concern beyond the conductor has an entry of its own: indusagi/store, /condensation, /models,
// /guardrails, /tools, /errors.
export * from '../runtime/contract/index.js';
export { createAgent, defineAgent } from '../providers/anthropic/create-agent.js';
export type { AgentDeps } from '../providers/anthropic/create-agent.js';
export { MissingApiKeyError } from '../providers/anthropic/errors.js';
export { createConductor, defineConductor, Run, DEFAULT_MAX_STEPS, OutputValidationError } from '../runtime/agent/index.js';
export type {
  Agent,
  AgentConfig,
  AgentDefinition,
  OpenOptions,
  RunOnceOptions,
  AgentTelemetry,
  InstrumentedAgent,
  ConductorDeps,
  SubmitOptions,
  CondenseOutcome,
  OutputSnapshot,
  InputRequest,
} from '../runtime/agent/index.js';
export * from '../runtime/agent/errors.js';
export {
  RunFault,
  RunAbortedError,
  MaxStepsError,
  ModelCallError,
  PromptTooLongError,
  ContextWindowExceededError,
  BudgetExceededError,
  AgentDepthError,
} from '../runtime/loop/index.js';
export { LimitsError, UnpricedModelError } from '../runtime/budget/index.js';
export type { ApprovalDecision, RunControls } from '../runtime/loop/index.js';
export { RunLedger, SnapshotAccumulator } from '../runtime/ledger/index.js';
export type { RunEventHandler, RunLedgerOptions, SubscriberErrorHook } from '../runtime/ledger/index.js';
// The session store and condensation names CONTRACT.md lists for this entry (the rest: indusagi/store, /condensation).
export { SessionStore, MemorySessionStore, SessionGraph, hashNode, loadSession } from '../runtime/store/index.js';
export type { SessionStoreLike } from '../runtime/store/index.js';
export { estimateContextTokens, shouldCompact, findCutPoint, summarize, compact } from '../runtime/compaction/index.js';
export { IndusagiError } from '../errors/index.js';
