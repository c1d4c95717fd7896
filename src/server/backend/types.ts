import type {
  ErrorInfo,
  Principal,
  RunInput,
  RunRecord,
  RunResult,
  ServerRunEvent,
  ThreadRecord,
  ContextMark,
  ServerRunStatus,
} from '../types.js';
import type { PendingApproval } from '../../runtime/contract/events.js';
import type { InputAnswer } from '../../runtime/contract/tool.js';
import type { InputRequest } from '../../runtime/agent/input-requests.js';
import type { RunTails } from '../events/tails.js';

/** What creating a run checks besides the thread: a thread made on the way (`useChat`'s first message), the tenant's cap. */
export type CreateRunOptions = { createThread: boolean; maxQueued: number; retryAfterSeconds: number };

/** A worker's hold on a run: the attempt it executes; every write under it is refused once another attempt took the run. */
export type Claim = {
  run: RunRecord;
  attempt: number;
  /** The id the next event gets (one past the newest stored, whichever attempt stored it). */
  nextEventId: number;
};

/** How a run ended, written together with its terminal event (`settled` or `faulted`). */
export type RunOutcome = {
  status: Exclude<ServerRunStatus, 'queued' | 'running'>;
  terminal: ServerRunEvent;
  result: RunResult | null;
  error: ErrorInfo | null;
  /** The thread as the run left it; undefined when the run never reached its session (the thread stays as it was). */
  thread: { pendingApprovals: PendingApproval[]; mark: ContextMark } | undefined;
};

/** An answer on its way to the worker executing the run that asked. */
export type InputDelivery = { runId: string; requestId: string; answer: InputAnswer };

/** Who executes runs: a process's identity (its heartbeat) and the job engine's lock holder for the job. */
export type WorkerIdentity = { workerId: string; holder: string };

/**
 * Where a server keeps threads, runs and run events, and how runs reach workers: PostgreSQL (many
 * machines) or this process (one machine). The HTTP layer and the run executor see only this.
 */
export interface ServerBackend {
  readonly tails: RunTails;
  createThread(principal: Principal, id: string, metadata: Record<string, unknown>): Promise<ThreadRecord>;
  getThread(tenant: string, id: string): Promise<ThreadRecord | undefined>;
  /** The tenant's threads, newest first; `before` is the `createdAt` to page from. */
  listThreads(tenant: string, opts: { limit: number; before?: string }): Promise<ThreadRecord[]>;
  /**
   * Merges `metadata` into the thread's (a key set to null is removed) and answers the thread as it now
   * stands (`NotFoundError` when the tenant has no such thread).
   */
  updateThread(tenant: string, id: string, metadata: Record<string, unknown>): Promise<ThreadRecord>;
  /** Deletes the thread, its runs and their events (`NotFoundError`, or `ThreadBusyError` while it runs something). */
  deleteThread(tenant: string, id: string): Promise<void>;
  /**
   * Queues a run on the thread, atomically: the thread exists (or is made), runs nothing else, the
   * tenant is under its cap, and the decisions name calls waiting on it; then a worker is told.
   */
  createRun(principal: Principal, threadId: string, input: RunInput, opts: CreateRunOptions): Promise<RunRecord>;
  getRun(tenant: string, runId: string): Promise<RunRecord | undefined>;
  listRuns(tenant: string, threadId: string, limit: number): Promise<RunRecord[]>;
  /** Asks the run to stop: a queued one ends `canceled` at once, a running one is told through its worker. */
  cancelRun(tenant: string, runId: string): Promise<RunRecord>;
  /** The questions run `runId` (a running run, already found for its tenant) waits on, from its stored events. */
  pendingInputs(runId: string): Promise<InputRequest[]>;
  /**
   * Keeps an answer (checked already) for the worker executing the run, on whichever machine, and wakes
   * it (`onInput`): false when the tenant has no such run running, or the question has an answer
   * already (one per question: the first kept wins). The run's `input_answered` event says it was taken.
   */
  answerInput(tenant: string, runId: string, answer: InputDelivery): Promise<boolean>;

  // The worker's side.
  /** Takes the run for one attempt, or undefined when it is finished or another live worker has it. */
  claimRun(runId: string, worker: WorkerIdentity): Promise<Claim | undefined>;
  /** The context mark the run started from, when the session turned out other than the thread said. */
  rebaseRun(claim: Claim, mark: ContextMark): Promise<void>;
  /** Stores events (ids from `claim.nextEventId` on) and tells readers; `RunFencedError` once another attempt has the run. */
  appendEvents(claim: Claim, events: ServerRunEvent[]): Promise<void>;
  /** Ends the run with its terminal event and the thread's new state, in one step; `RunFencedError` as above. */
  finishRun(claim: Claim, outcome: RunOutcome): Promise<void>;
  /** Calls `handler` with the id of every run someone asked to cancel (from any server instance). */
  onCancel(handler: (runId: string) => void): () => void;
  /** The answers kept for those of `requestIds` (questions of run `runId`, of `tenant`) that have one. */
  storedAnswers(tenant: string, runId: string, requestIds: string[]): Promise<InputDelivery[]>;
  /**
   * Calls `handler` with the id of a running run someone answered (on any server instance), for the
   * worker executing it to read `storedAnswers`; with undefined when wake-ups may have been missed (a
   * dropped LISTEN connection is back), for every run executing here to read them.
   */
  onInput(handler: (runId: string | undefined) => void): () => void;

  /** Whether the store answers now (for /health): false while its database is unreachable. */
  reachable(): Promise<boolean>;
  close(): Promise<void>;
}
