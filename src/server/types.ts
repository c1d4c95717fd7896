import type { AgentConfig } from '../runtime/agent/types.js';
import type { ModelInvoker, ModelUsage } from '../runtime/contract/model.js';
import type { PendingApproval, RunEvent, RunStatus } from '../runtime/contract/events.js';
import type { MemoryStore } from '../memory/types.js';

/** Who a request (or a run) acts for: the tenant is the wall around every thread, run, stream and memory. */
export type Principal = {
  tenant: string;
  user: string;
  /** May read but not start, cancel, edit or delete anything (403 on those). */
  readOnly?: boolean;
};

/** Answers who sent a request: a principal, or null for no (or unknown) credentials (401). May throw a `ServerError`. */
export type Authenticate = (request: Request) => Principal | null | Promise<Principal | null>;

/** What the agent factory is told about the run it builds an agent for. */
export type AgentContext = {
  tenant: string;
  /** The user who started the run. */
  user: string;
  threadId: string;
  runId: string;
  /** The tenant's memory store, when the server has one: give it to your memory tools. */
  memory: MemoryStore | undefined;
};

/** What an agent factory returns: the agent's config (its session is the thread) and its model. */
export type ServerAgent = {
  config: Omit<AgentConfig, 'sessionId'>;
  invokeModel: ModelInvoker;
};

/** Builds the agent that executes one run, in the worker that executes it (API servers never call it). */
export type AgentFactory = (context: AgentContext) => ServerAgent | Promise<ServerAgent>;

/** A decision on a call waiting for approval, as `agent.approve` / `agent.reject` take it. */
export type Decision = { approvalId: string; approved: boolean; reason?: string };

/**
 * What a run does: answer a prompt, apply decisions (each an `approve` or `reject`, in order), go on, or move the leaf
 * (`nodeId` null: before the first turn, so the next prompt starts a new root beside the old one).
 */
export type RunInput =
  | { kind: 'prompt'; prompt: string }
  | { kind: 'decisions'; decisions: Decision[] }
  | { kind: 'continue' }
  | { kind: 'fork'; nodeId: string | null };

/** Why a run failed: a conductor fault kind (`aborted`, `model_error`, ...) or another error's kind, and what it said. */
export type ErrorInfo = { kind: string; message: string };

export type ServerRunStatus = 'queued' | 'running' | 'settled' | 'waiting' | 'faulted' | 'canceled';

/** How a run ended, as its terminal event said (the snapshot without its messages). */
export type RunResult = {
  status: RunStatus;
  text: string;
  pendingApprovals: PendingApproval[];
  usage: ModelUsage;
  output?: unknown;
};

/** Where the session's context stood: its length and a digest of its last turn (see runs/context-mark.ts). */
export type ContextMark = { length: number; last: string | null };

export type RunRecord = {
  id: string;
  threadId: string;
  tenant: string;
  /** Who started it. */
  user: string;
  input: RunInput;
  status: ServerRunStatus;
  /** Executions so far: 1 once a worker took it, more after takeovers. */
  attempt: number;
  cancelRequested: boolean;
  error: ErrorInfo | null;
  result: RunResult | null;
  /** The thread's context mark when the run was created (what a takeover compares with). */
  base: ContextMark;
  /** The id of the newest stored event (0: none yet). */
  lastEventId: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The events are past the retention period: the stream can no longer be replayed. */
  eventsExpired: boolean;
};

export type ThreadStatus = 'idle' | 'busy' | 'waiting';

export type ThreadRecord = {
  id: string;
  tenant: string;
  createdBy: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  /** `busy` while a run is queued or running, `waiting` when calls wait for a decision, else `idle`. */
  status: ThreadStatus;
  activeRunId: string | null;
  pendingApprovals: PendingApproval[];
  /** Where the context stood after the last run (internal: what the next run's takeover compares with). */
  mark: ContextMark;
};

/** One event of a run as stored: `id` rises by one per event of the run, from 1. */
export type StoredEvent = { id: number; event: ServerRunEvent };

/**
 * The events a run's stream carries: the conductor's `RunEvent`s stamped with the server's run id,
 * text deltas coalesced, per-step `snapshot`s left out, and one terminal event, `settled` or
 * `faulted`, whose snapshot leaves the messages out (the thread has them: GET /threads/{id}); plus
 * `run_taken_over` when another worker picked the run up after its worker died.
 */
export type ServerRunEvent =
  | Exclude<RunEvent, { kind: 'settled' | 'faulted' | 'snapshot' }>
  | { kind: 'settled'; snapshot: RunResult; runId: string }
  | { kind: 'faulted'; error: ErrorInfo; snapshot: RunResult; runId: string }
  | { kind: 'run_taken_over'; attempt: number; runId: string };

/** The limits a server enforces; see docs/server.md. */
export type ServerLimits = {
  /** Largest request body, in bytes (413 past it). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Runs one tenant may have queued or running at once (429 with `retry-after` past it). Default 100. */
  maxQueuedRunsPerTenant?: number;
  /** Longest prompt, in characters. Default 200,000. */
  maxPromptChars?: number;
};
