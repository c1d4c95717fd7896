import type { CacheMode, CacheTtl, ModelInvoker, ModelUsage } from './model.js';
import type { ToolDefinition } from './tool.js';
import type { RunEvent, RunSnapshot } from './events.js';
import type { SessionGraph } from '../store/graph.js';
import type { RunLedger } from '../ledger/ledger.js';
import type { AnthropicClientLike } from '../../providers/anthropic/client.js';
import type { LoopHooks } from '../loop/types.js';
import type { PendingApproval } from './events.js';
import type { ContextManager } from '../../context/types.js';

/** When to condense history. Omit `AgentConfig.compaction` to disable condensation. */
export type CompactionPolicy = {
  /** Condense once the next call's estimated input reaches this share of the window. Default 0.8. */
  triggerRatio?: number;
  /** Turns always kept verbatim at the end of the history. Default 8. */
  keepRecent?: number;
};

export type AgentConfig = {
  model: string;
  system?: string;
  tools?: ToolDefinition[];
  /** Model calls allowed in one run before it faults with `max_steps`. Default 64. */
  maxSteps?: number;
  maxOutputTokens?: number;
  /** Overrides the model card's context window. */
  contextWindow?: number;
  compaction?: CompactionPolicy;
  /** Owns recall, tool loading and write-backs for each run (`createContextManager`); see docs/context.md. */
  context?: ContextManager;
  sessionId?: string;
  /** Run a step's tool calls one at a time instead of all at once. Results are in call order either way. */
  sequential?: boolean;
  /** Prompt caching: `auto` (default) places cache breakpoints on every call, `off` none. See docs/usage-and-caching.md. */
  cache?: CacheMode;
  /** TTL of the cache breakpoints: `5m` (the API's default) or `1h`. */
  cacheTtl?: CacheTtl;
};

/**
 * The structural store interface the conductor needs. `SessionStore` implements it; inject your own
 * (a database, a remote service) without subclassing.
 */
export interface SessionStoreLike {
  /** Reads a session without taking its writer lock. A missing session is an empty graph. */
  loadSession(id: string): Promise<SessionGraph>;
  /** Takes the session's writer lock, then loads it. Rejects if another live writer holds it. */
  openSession(id: string): Promise<SessionGraph>;
  /** Durably appends what `graph` gained since it was loaded or last persisted; resolves once on disk. */
  persist(graph: SessionGraph): Promise<void>;
  /** Releases the writer lock taken by `openSession`. */
  closeSession(id: string): Promise<void>;
}

export type AgentDeps = {
  store?: SessionStoreLike;
  ledger?: RunLedger;
  invokeModel?: ModelInvoker;
  client?: AnthropicClientLike;
  /** Runs around every model call of every run: condensation, context managers and usage accounting plug in here. */
  hooks?: LoopHooks;
};

export type SubmitOptions = { signal?: AbortSignal };

export interface Agent {
  readonly sessionId: string;
  submit(prompt: string, opts?: SubmitOptions): Promise<RunSnapshot>;
  subscribe(handler: (e: RunEvent) => void): () => void;
  resume(sessionId: string): Promise<RunSnapshot>;
  abort(): void;
  /** Runs the waiting tool call `approvalId` (its call id); the run goes on once every call of its batch is decided. */
  approve(approvalId: string): Promise<RunSnapshot>;
  /** Answers the waiting call `approvalId` with an error result saying the user rejected it (and why); it never runs. */
  reject(approvalId: string, reason?: string): Promise<RunSnapshot>;
  /** The calls of the current session waiting for a decision (after `resume` for a session read from a store). */
  pendingApprovals(): PendingApproval[];
  /**
   * Tokens billed over the whole current session: every model call stored in it, all branches and
   * summarizer calls included, earlier runs and processes too (read from the store). Queued behind runs.
   */
  sessionUsage(): Promise<ModelUsage>;
  /** Waits for queued work, then releases the session (the store's writer lock). Later calls reject. */
  close(): Promise<void>;
}

