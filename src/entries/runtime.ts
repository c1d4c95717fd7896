// The `indusagi/runtime` entry: the conductor and the vocabulary it speaks, vendor-free, and nothing that
// has an entry of its own (one home per name, CONTRACT.md's fourth round; docs/packaging.md lists where
// each name lives). `defineAgent` defines an agent and `createAgent` (CONTRACT.md) opens one conversation of it,
// with Claude as the default model; the vendor-free factories behind them (`defineConductor`, `createConductor`)
// stay internal, so there is one way to make an agent. Wired
// in src/providers/anthropic/create-agent.ts, which loads `@anthropic-ai/sdk` only on Claude's first call:
// importing this entry loads no vendor SDK. The run's errors are in indusagi/errors; the rest of the
// store, compaction, models, tools and guardrails in indusagi/store, /compaction, /models, /tools, /guardrails.
export { createAgent, defineAgent } from '../providers/anthropic/create-agent.js';
export type { AgentDeps } from '../providers/anthropic/create-agent.js';
export { Run, DEFAULT_MAX_STEPS } from '../runtime/agent/index.js';
export type {
  Agent,
  AgentConfig,
  AgentDefinition,
  OpenOptions,
  RunOnceOptions,
  AgentTelemetry,
  InstrumentedAgent,
  SubmitOptions,
  CompactionOutcome,
  OutputSnapshot,
  InputRequest,
} from '../runtime/agent/index.js';
export type { ApprovalDecision, RunControls } from '../runtime/loop/index.js';
export { RunLedger, SnapshotAccumulator } from '../runtime/ledger/index.js';
export type { RunEventHandler, RunLedgerOptions, SubscriberErrorHook } from '../runtime/ledger/index.js';
// The contract's shapes the conductor speaks: turns and blocks, events and snapshots, steps, limits,
// the context seam, and the model and tool names CONTRACT.md lists for this entry.
export { toolResultContent } from '../runtime/contract/index.js';
export type {
  Turn,
  Block,
  PromptBlock,
  TextBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
  MediaSource,
  ImageBlock,
  DocumentBlock,
  RunEvent,
  RunEventBody,
  RunEventKind,
  RunSnapshot,
  RunStatus,
  RunError,
  FaultKind,
  InterruptedCall,
  PrepareStep,
  StepInput,
  StepOverrides,
  RunLimits,
  LimitName,
  ContextManagerLike,
  PreparedContextLike,
  HandledCallLike,
  ContextReport,
  CompactionPolicy,
  ModelCard,
  ModelInvoker,
  ToolDefinition,
  SessionNode,
  Migrator,
} from '../runtime/contract/index.js';
// The session store and compaction names CONTRACT.md lists for this entry (the rest: indusagi/store, /compaction).
export { SessionStore, SessionGraph, hashNode } from '../runtime/store/index.js';
export { estimateContextTokens, shouldCompact, findCutPoint, summarize, compact } from '../runtime/compaction/index.js';
