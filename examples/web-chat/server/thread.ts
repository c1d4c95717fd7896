import type { AgentPart } from '../../../src/parts/index.js';
import type { AssistantItem } from '../../../src/chat/index.js';
import { applyPartToThread, findToolPart } from '../../../src/chat/index.js';
import { CONDENSED_PREFIX } from '../../../src/runtime/contract/turn.js';
import type { PendingApproval, Turn } from '../../../src/entries/runtime.js';

/**
 * The chat thread as the page showed it live, rebuilt from the session's turns: a tool result (which
 * travels in a user turn) fills in its call's tool part, the model's answer to it joins the same
 * reply, and calls still waiting for a decision get their `approvalId` back so the buttons return.
 */
export function itemsFromTurns(turns: readonly Turn[], pending: readonly PendingApproval[]): AssistantItem[] {
  const waiting = new Map(pending.map((p) => [p.callId, p]));
  let items: AssistantItem[] = [];
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      if (items[items.length - 1]?.role !== 'assistant') items = [...items, { role: 'assistant', parts: [] }];
      for (const block of turn.blocks) {
        if (block.kind === 'text') items = applyPartToThread(items, items.length - 1, { type: 'text', text: block.text });
        if (block.kind === 'tool_call') items = applyPartToThread(items, items.length - 1, callPart(block.id, block.name, block.input, waiting.get(block.id)));
      }
      continue;
    }
    const text = turn.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('');
    for (const block of turn.blocks) {
      if (block.kind !== 'tool_result') continue;
      const found = findToolPart(items, block.callId);
      if (found === null) continue;
      const call = (items[found.item] as { parts: AgentPart[] }).parts[found.part] as Extract<AgentPart, { type: 'tool' }>;
      const answered: AgentPart = { type: 'tool', name: call.name, callId: call.callId, input: call.input, result: block.content };
      if (block.isError) answered.isError = true;
      items = applyPartToThread(items, found.item, answered);
    }
    if (text === '') continue;
    // A condensation summary stands in for the turns it replaced; it reads as the assistant's recap.
    if (text.startsWith(CONDENSED_PREFIX)) items = [...items, { role: 'assistant', parts: [{ type: 'text', text }] }];
    else items = [...items, { role: 'user', text }];
  }
  return items;
}

function callPart(callId: string, name: string, input: unknown, pending: PendingApproval | undefined): AgentPart {
  if (pending === undefined) return { type: 'tool', name, callId, input, result: undefined };
  return {
    type: 'tool',
    name,
    callId,
    input,
    result: { status: 'pending_approval', actionId: pending.approvalId },
    approvalId: pending.approvalId,
  };
}
