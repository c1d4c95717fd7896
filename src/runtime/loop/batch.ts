import type { ToolCallBlock, Turn } from '../contract/turn.js';
import type { PendingApproval } from '../contract/events.js';

/**
 * The tool calls of the last assistant turn that have no result yet. Results of one batch may arrive in
 * several user turns (calls that ran at once, then each approval), so every turn after it is checked.
 * This is all the state approvals need: a session read back from disk yields the same open batch.
 */
export function openBatch(context: readonly Turn[]): ToolCallBlock[] {
  for (let i = context.length - 1; i >= 0; i--) {
    const turn = context[i];
    if (turn.role !== 'assistant') continue;
    const open: ToolCallBlock[] = [];
    for (const block of turn.blocks) if (block.kind === 'tool_call' && !answeredAfter(context, i, block.id)) open.push(block);
    return open;
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

/** Every unanswered call of the open batch, as approvals to decide (the approval id is the call id). */
export function pendingApprovalsOf(context: readonly Turn[]): PendingApproval[] {
  return openBatch(context).map(toPendingApproval);
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
