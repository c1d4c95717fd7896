import { ApprovalNotPendingError, ThreadBusyError, ThreadWaitingError, type ServerError } from '../errors.js';
import type { Principal, RunInput, ThreadRecord } from '../types.js';

/** A new thread's record, idle and empty, as every backend first stores it. */
export function newThread(principal: Principal, id: string, metadata: Record<string, unknown>): ThreadRecord {
  const now = new Date().toISOString();
  return {
    id,
    tenant: principal.tenant,
    createdBy: principal.user,
    metadata,
    createdAt: now,
    updatedAt: now,
    status: 'idle',
    activeRunId: null,
    pendingApprovals: [],
    mark: { length: 0, last: null },
  };
}

/**
 * Why the thread refuses a run of `input`, as every backend answers it: busy with another run, waiting
 * on decisions (a prompt), or a decision for a call it does not wait on; undefined when it takes it.
 */
export function runRefusal(thread: ThreadRecord, input: RunInput): ServerError | undefined {
  if (thread.activeRunId !== null) return new ThreadBusyError(thread.id, thread.activeRunId);
  const waiting = thread.pendingApprovals.map((p) => p.approvalId);
  if (input.kind === 'prompt' && waiting.length > 0) return new ThreadWaitingError(thread.id, waiting);
  if (input.kind === 'decisions') {
    const stray = input.decisions.find((d) => !waiting.includes(d.approvalId));
    if (stray !== undefined) return new ApprovalNotPendingError(thread.id, stray.approvalId);
  }
  return undefined;
}
