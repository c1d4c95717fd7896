import type { PendingApproval, InterruptedCall } from '../contract/events.js';
import type { CallerRun } from '../contract/tool.js';
import { nestedApprovals, openBatch } from '../loop/batch.js';
import type { LoopEvent, LoopTools } from '../loop/types.js';
import type { AgentSession } from './session.js';

// Per open session: the resumable calls of its open batch known to wait on approvals of their own (a
// sub-agent's), with those approvals as this agent lists them. Kept beside the session, not in it: it
// is what a run or a probe learned, and a new process learns it again (`probeWaitingCalls`).
const known = new WeakMap<AgentSession, Map<string, PendingApproval[]>>();

function waitingOf(session: AgentSession): Map<string, PendingApproval[]> {
  let calls = known.get(session);
  if (calls === undefined) known.set(session, (calls = new Map()));
  return calls;
}

/**
 * Reads a loop event for what it says about resumable calls: `call_waiting` records what a call waits
 * on; `tool_started` forgets it (the call runs again, and will say anew). True for `call_waiting`,
 * which only the conductor reads.
 */
export function noteCall(session: AgentSession, event: LoopEvent): event is Extract<LoopEvent, { kind: 'call_waiting' }> {
  if (event.kind === 'call_waiting') {
    waitingOf(session).set(event.callId, event.pending);
    return true;
  }
  if (event.kind === 'tool_started') known.get(session)?.delete(event.callId);
  return false;
}

/**
 * The open batch's standing with every resumable call known to wait moved from `interrupted` (a call
 * to pick up) to `pending`: the approvals it waits on are the agent's own to decide.
 */
export function withWaitingCalls<S extends { pending: PendingApproval[]; interrupted: InterruptedCall[] }>(
  session: AgentSession,
  standing: S,
): S {
  const calls = known.get(session);
  if (calls === undefined || calls.size === 0 || standing.interrupted.length === 0) return standing;
  const pending = standing.pending.slice();
  const interrupted: InterruptedCall[] = [];
  for (const call of standing.interrupted) {
    const waiting = calls.get(call.callId);
    if (waiting === undefined) interrupted.push(call);
    else pending.push(...waiting);
  }
  return { ...standing, pending, interrupted };
}

/**
 * Asks each started resumable call of the session's open batch what it waits on, read from where it
 * keeps its state (a sub-agent's session): after a restart that is known nowhere else. Runs when a
 * session is opened from its store, before anything reads its standing.
 */
export async function probeWaitingCalls(session: AgentSession, tools: LoopTools, caller: CallerRun): Promise<void> {
  for (const call of openBatch(session.context)) {
    const resumable = tools.has(call.name) ? tools.resumable(call.name) : undefined;
    // A call that needs approval and never started waits on its own approval, not on anything inside it.
    if (resumable === undefined || (tools.needsApproval(call.name) && session.startsOf(call.id) === 0)) continue;
    const pending = await resumable.waiting(call.id, caller);
    if (pending.length > 0) waitingOf(session).set(call.id, nestedApprovals(call, pending));
  }
}
