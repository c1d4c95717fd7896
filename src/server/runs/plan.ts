import type { RunSnapshot } from '../../runtime/contract/events.js';
import type { RunRecord } from '../types.js';
import { promptRecorded } from './context-mark.js';

/** One conductor operation of a run. */
export type Step =
  | { kind: 'submit'; prompt: string }
  | { kind: 'approve'; approvalId: string }
  | { kind: 'reject'; approvalId: string; reason?: string }
  | { kind: 'continue' }
  | { kind: 'fork'; nodeId: string | null };

/**
 * The conductor operations that carry `run` out, given where its thread stands now (the snapshot of
 * the session just opened). A first attempt does what the input says. A takeover (an earlier worker
 * died mid-run) does only what is left, with `continue()` semantics for what the dead worker had
 * begun: a prompt already recorded is not sent again, a decision already applied is not applied
 * again, and whatever the loop was doing is picked up where the session stands.
 */
export function planRun(run: RunRecord, attempt: number, standing: RunSnapshot): Step[] {
  const input = run.input;
  const takeover = attempt > 1;
  switch (input.kind) {
    case 'prompt':
      return takeover && promptRecorded(run.base, standing.messages) ? [{ kind: 'continue' }] : [{ kind: 'submit', prompt: input.prompt }];
    case 'decisions': {
      const waiting = new Set(standing.pendingApprovals.map((pending) => pending.approvalId));
      const left = takeover ? input.decisions.filter((d) => waiting.has(d.approvalId)) : input.decisions;
      const steps: Step[] = left.map((d) =>
        d.approved ? { kind: 'approve', approvalId: d.approvalId } : { kind: 'reject', approvalId: d.approvalId, reason: d.reason },
      );
      // Every decision was in before the worker died: the loop they started is what remains.
      return takeover && steps.length === 0 ? [{ kind: 'continue' }] : steps;
    }
    case 'continue':
      return [{ kind: 'continue' }];
    case 'fork':
      return [{ kind: 'fork', nodeId: input.nodeId }];
  }
}
