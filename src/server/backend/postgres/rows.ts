import type { RunRecord, ThreadRecord, ServerRunStatus } from '../../types.js';

export type ThreadRow = {
  tenant: string;
  id: string;
  created_by: string;
  metadata: string;
  created_at: Date;
  updated_at: Date;
  active_run: string | null;
  pending: string;
  mark_length: number;
  mark_last: string | null;
};

export type RunRow = {
  id: string;
  tenant: string;
  thread: string;
  created_by: string;
  input: string;
  status: string;
  attempt: number;
  cancel_requested: boolean;
  base_length: number;
  base_last: string | null;
  result: string | null;
  error: string | null;
  events_expired: boolean;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  last_seq: string | number;
};

export function threadOf(row: ThreadRow): ThreadRecord {
  const pendingApprovals = JSON.parse(row.pending) as ThreadRecord['pendingApprovals'];
  return {
    id: row.id,
    tenant: row.tenant,
    createdBy: row.created_by,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    status: row.active_run !== null ? 'busy' : pendingApprovals.length > 0 ? 'waiting' : 'idle',
    activeRunId: row.active_run,
    pendingApprovals,
    mark: { length: row.mark_length, last: row.mark_last },
  };
}

export function runOf(row: RunRow): RunRecord {
  return {
    id: row.id,
    threadId: row.thread,
    tenant: row.tenant,
    user: row.created_by,
    input: JSON.parse(row.input) as RunRecord['input'],
    status: row.status as ServerRunStatus,
    attempt: row.attempt,
    cancelRequested: row.cancel_requested,
    error: row.error === null ? null : (JSON.parse(row.error) as RunRecord['error']),
    result: row.result === null ? null : (JSON.parse(row.result) as RunRecord['result']),
    base: { length: row.base_length, last: row.base_last },
    lastEventId: Number(row.last_seq),
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    eventsExpired: row.events_expired,
  };
}
