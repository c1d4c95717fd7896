import type { PendingApproval, RunEvent, RunSnapshot, RunStatus } from '../contract/events.js';
import type { ModelUsage } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import { lastAssistantText, openBatchStanding } from '../loop/batch.js';
import type { LoopTools } from '../loop/types.js';
import type { ContextReport } from '../contract/context.js';
import type { AgentSession } from './session.js';
import { zeroUsage } from '../usage/sum.js';
import { withWaitingCalls } from './waiting-calls.js';

/**
 * What the calls of the session's open batch are now: waiting for a decision (their own, or one a
 * sub-agent's call waits on), or cut off by a stopped run.
 */
export function standingOf(session: AgentSession, tools: LoopTools) {
  return withWaitingCalls(
    session,
    openBatchStanding(session.context, tools, (callId) => session.startsOf(callId)),
  );
}

/**
 * The session as it stands between runs (after `resume` and `branchFrom`): interrupted, waiting or
 * settled. A context that ends with a user turn was cut off, unless that turn holds the results of
 * the calls of a batch that ran while others of it wait for a decision.
 */
export function standingSnapshot(session: AgentSession, tools: LoopTools): RunSnapshot {
  const { pending, interrupted } = standingOf(session, tools);
  const cutOff = interrupted.length > 0 || (pending.length === 0 && session.context.at(-1)?.role === 'user');
  const status: RunStatus = cutOff ? 'interrupted' : pending.length > 0 ? 'waiting' : 'settled';
  const snapshot = snapshotOf(session.id, session.context, status, zeroUsage(), pending);
  if (cutOff) snapshot.interrupted = interrupted;
  if (session.tripped !== undefined) snapshot.tripped = session.tripped;
  if (session.report !== undefined) snapshot.loadReport = session.report;
  return snapshot;
}

export function snapshotOf(
  sessionId: string,
  context: readonly Turn[],
  status: RunStatus,
  usage: ModelUsage,
  pending: PendingApproval[] = [],
): RunSnapshot {
  return {
    sessionId,
    messages: context.slice(),
    text: lastAssistantText(context),
    status,
    pendingApprovals: pending,
    usage: { ...usage },
  };
}

export function contextEvent(part: ContextReport, runId: string): RunEvent {
  const event: Extract<RunEvent, { kind: 'context' }> = { kind: 'context', source: part.source, op: part.op, runId };
  if (part.records !== undefined) event.records = part.records;
  if (part.tools !== undefined) event.tools = part.tools;
  if (part.tokens !== undefined) event.tokens = part.tokens;
  return event;
}
