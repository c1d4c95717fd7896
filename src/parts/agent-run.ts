import type { RunEvent, RunSnapshot } from '../runtime/contract/events.js';
import type { Run } from '../runtime/agent/run.js';
import type { MemoryRecord } from '../memory/types.js';
import { approvalResult, isHeldApproval } from '../tools/approvals.js';
import type { AgentPart } from './types.js';

/**
 * The events of one run, in order, then its snapshot: `run`'s own events (every one carries its
 * `runId`), so runs streamed side by side on one agent never mix. A faulted run throws its `RunFault`
 * after the events before it.
 */
export async function* agentRunEvents(run: Run): AsyncGenerator<RunEvent, RunSnapshot, undefined> {
  for await (const event of run) yield event;
  return await run;
}

/**
 * The parts of one run: text deltas, a tool part per finished call, a tool part with `approvalId` per
 * call waiting for approval (its later result has the same `callId`), and context parts. This is the
 * one translation from `RunEvent`s to `AgentPart`s: `runAgent` and the part-stream transport both use
 * it. A faulted run throws its `RunFault` after the parts before it; the generator returns the snapshot.
 */
export async function* agentRunParts(run: Run): AsyncGenerator<AgentPart, RunSnapshot, undefined> {
  for await (const event of run) {
    const part = partOfEvent(event);
    if (part !== null) yield part;
  }
  return await run;
}

/** The id a sub-agent's waiting call is decided with at the top: the ids of the calls it sits in, then its own, joined by `/`. */
export function nestedApprovalId(calls: readonly string[], approvalId: string): string {
  return [...calls, approvalId].join('/');
}

/**
 * The part `event` becomes, or null. A call the agent holds (`approval_requested`) and one a toolset
 * holds (`toToolset` with `needsApproval`) make the same part: its result from `approvalResult`, and
 * `approvalId`. A result is an approval request only when somebody really holds that call: a tool
 * returning the same shape of JSON (a fetched page, say) cannot make a part that approves somebody
 * else's call.
 */
export function partOfEvent(event: RunEvent): AgentPart | null {
  switch (event.kind) {
    case 'text_delta':
      return { type: 'text', text: event.delta };
    case 'approval_requested':
      return {
        type: 'tool',
        name: event.name,
        callId: event.callId,
        input: event.input,
        result: approvalResult(event),
        approvalId: event.approvalId,
      };
    case 'tool_finished': {
      const part: AgentPart = { type: 'tool', name: event.name, callId: event.callId, input: event.input, result: event.result };
      if (event.isError) part.isError = true;
      if (isHeldApproval(event.result)) part.approvalId = event.result.actionId;
      return part;
    }
    case 'context': {
      const part: AgentPart = { type: 'context', source: event.source, op: event.op };
      if (event.records !== undefined) part.records = event.records as MemoryRecord[];
      if (event.tools !== undefined) part.tools = event.tools;
      if (event.tokens !== undefined) part.tokens = event.tokens;
      return part;
    }
    case 'nested': {
      const inner = partOfEvent(event.event);
      if (inner === null || inner.type === 'nested') return null;
      // A sub-agent's call is decided at the top, under the id that names the calls it sits in.
      const part =
        inner.type === 'tool' && event.event.kind === 'approval_requested'
          ? { ...inner, approvalId: nestedApprovalId(event.calls, event.event.approvalId) }
          : inner;
      return { type: 'nested', path: event.path, calls: event.calls, part };
    }
    case 'partial_output':
      return { type: 'output', value: event.value };
    case 'guardrail_tripped':
      return { type: 'guardrail', trip: event.trip };
    default:
      return null;
  }
}
