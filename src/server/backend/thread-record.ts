import type { Principal, ThreadRecord } from '../types.js';

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
