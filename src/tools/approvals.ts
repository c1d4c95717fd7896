import type { PendingApproval } from '../runtime/contract/events.js';

/**
 * What the model (and a `tool` part) sees in place of a result while a call waits for approval:
 * `actionId` is the call's approval id, what `toolset.approve` and `agent.approve` take.
 */
export type PendingApprovalResult = { status: 'pending_approval'; actionId: string };

// The results `approvalResult` minted for calls somebody holds. Anything else of that shape (JSON a tool
// fetched, say) is only data: it must never turn into a request to approve somebody else's call.
const held = new WeakSet<object>();

/**
 * The one place a call waiting for approval becomes a `{ status: 'pending_approval', actionId }`
 * result: a toolset's held call (`toToolset` with `needsApproval`) and the agent's (`approval_requested`)
 * alike. The result is recognised later by `isHeldApproval`, never by its shape.
 */
export function approvalResult(approval: PendingApproval): PendingApprovalResult {
  const result: PendingApprovalResult = { status: 'pending_approval', actionId: approval.approvalId };
  held.add(result);
  return result;
}

/**
 * True when `value` is a `PendingApprovalResult` minted for a call that is really held (a toolset's or
 * the agent's), so `approve(actionId)` will run it. Use this, not the shape, to decide whether to
 * offer approve/reject.
 */
export function isHeldApproval(value: unknown): value is PendingApprovalResult {
  return typeof value === 'object' && value !== null && held.has(value);
}

/** True when `value` has the shape of a `PendingApprovalResult`; see `isHeldApproval` for whether anybody holds it. */
export function isPendingApproval(value: unknown): value is PendingApprovalResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as PendingApprovalResult).status === 'pending_approval' &&
    typeof (value as PendingApprovalResult).actionId === 'string'
  );
}
