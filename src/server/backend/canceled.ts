import { zeroUsage } from '../../runtime/usage/sum.js';
import type { ErrorInfo, ServerRunEvent } from '../types.js';

/** The terminal event and error of a run canceled while it was still queued: it never ran. */
export function canceledBeforeStart(runId: string): { terminal: ServerRunEvent; error: ErrorInfo } {
  const error = { kind: 'aborted', message: 'The run was canceled before it started.' };
  return {
    error,
    terminal: { kind: 'faulted', error, snapshot: { status: 'faulted', text: '', pendingApprovals: [], usage: zeroUsage() }, runId },
  };
}
