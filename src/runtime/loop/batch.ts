import type { ToolCallBlock, Turn } from '../contract/turn.js';
import type { InterruptedCall, PendingApproval } from '../contract/events.js';
import type { LoopTools } from './types.js';

/**
 * The tool calls of the last assistant turn that have no result yet. Results of one batch may arrive in
 * several user turns (calls that ran at once, then each approval), so every turn after it is checked.
 * This is all the state approvals need: a session read back from disk yields the same open batch.
 */
export function openBatch(context: readonly Turn[]): ToolCallBlock[] {
  for (let i = context.length - 1; i >= 0; i--) {
    const turn = context[i];
    if (turn.role !== 'assistant') continue;
    // Made only once a call is open: every step asks twice, and after its results the answer is none.
    let open: ToolCallBlock[] | undefined;
    for (const block of turn.blocks) if (block.kind === 'tool_call' && !answeredAfter(context, i, block.id)) (open ??= []).push(block);
    return open ?? [];
  }
  return [];
}

// A batch holds a handful of calls, so a scan beats building a set on every step.
function answeredAfter(context: readonly Turn[], index: number, callId: string): boolean {
  for (let j = index + 1; j < context.length; j++) {
    for (const block of context[j].blocks) if (block.kind === 'tool_result' && block.callId === callId) return true;
  }
  return false;
}

/**
 * Every unanswered call of the open batch, as approvals to decide (the approval id is the call id),
 * when nothing is known about the tools; `openBatchStanding` tells approvals from interrupted calls.
 */
export function pendingApprovalsOf(context: readonly Turn[]): PendingApproval[] {
  return openBatch(context).map(toPendingApproval);
}

/**
 * What an unanswered call of an earlier reply is, now. A call whose tool needs approval starts only
 * when approved (`startsOf` counts that); any other call was about to start once its reply was durable.
 * Never started: `pending`, it waits for a decision. Started once: it may have run before the run
 * stopped, so it is `rerun` when running it again does no harm (an idempotent tool), `interrupted`
 * when not. Started more than once: `interrupted`, whatever the tool (a call is run again only once).
 * A resumable tool's call (a sub-agent's) is always `rerun` once started: running it again picks it up
 * where it stopped, however often it stopped.
 */
export function callStanding(
  call: ToolCallBlock,
  tools: Pick<LoopTools, 'has' | 'needsApproval' | 'idempotent' | 'resumable'>,
  startsOf: (callId: string) => number,
): 'pending' | 'rerun' | 'interrupted' {
  const known = tools.has(call.name);
  const starts = startsOf(call.id) + (known && tools.needsApproval(call.name) ? 0 : 1);
  if (starts === 0) return 'pending';
  if (known && tools.resumable(call.name) !== undefined) return 'rerun';
  return known && tools.idempotent(call.name) && starts === 1 ? 'rerun' : 'interrupted';
}

/** The open batch split into the calls waiting for a decision and those a stopped run cut off. */
export function openBatchStanding(
  context: readonly Turn[],
  tools: Pick<LoopTools, 'has' | 'needsApproval' | 'idempotent' | 'resumable'>,
  startsOf: (callId: string) => number,
): { pending: PendingApproval[]; interrupted: InterruptedCall[] } {
  const pending: PendingApproval[] = [];
  const interrupted: InterruptedCall[] = [];
  for (const call of openBatch(context)) {
    const standing = callStanding(call, tools, startsOf);
    if (standing === 'pending') pending.push(toPendingApproval(call));
    else interrupted.push({ callId: call.id, name: call.name, input: call.input, rerun: standing === 'rerun' });
  }
  return { pending, interrupted };
}

/**
 * The approvals a resumable call (a sub-agent's) waits on, as the agent that made the call lists them:
 * each id prefixed with the call's id and `/`, the tool's name in front of its path.
 */
export function nestedApprovals(call: ToolCallBlock, pending: readonly PendingApproval[]): PendingApproval[] {
  return pending.map((p) => ({ ...p, approvalId: `${call.id}/${p.approvalId}`, path: [call.name, ...(p.path ?? [])] }));
}

export function toPendingApproval(call: ToolCallBlock): PendingApproval {
  return { approvalId: call.id, callId: call.id, name: call.name, input: call.input };
}

/** The text blocks of the last assistant turn, joined: what `RunSnapshot.text` reports. */
export function lastAssistantText(context: readonly Turn[]): string {
  for (let i = context.length - 1; i >= 0; i--) {
    const turn = context[i];
    if (turn.role !== 'assistant') continue;
    let text = '';
    for (const block of turn.blocks) if (block.kind === 'text') text += block.text;
    return text;
  }
  return '';
}

/** The text of the last user turn that has any: what memory recalls against when a run has no new prompt. */
export function lastUserText(context: readonly Turn[]): string {
  for (let i = context.length - 1; i >= 0; i--) {
    const turn = context[i];
    if (turn.role !== 'user') continue;
    let text = '';
    for (const block of turn.blocks) if (block.kind === 'text') text += text === '' ? block.text : `\n${block.text}`;
    if (text !== '') return text;
  }
  return '';
}
