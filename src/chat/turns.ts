import type { AgentPart, AgentToolPart } from '../parts/types.js';
import type { PendingApproval } from '../runtime/contract/events.js';
import { COMPACTION_PREFIX, toolResultContent, type Block, type Turn } from '../runtime/contract/turn.js';
import { applyPartToThread, findToolPart } from './thread.js';
import type { AssistantItem } from './types.js';

// Conversions between the conversation as the model sees it (turns, as a session stores them) and as
// a chat UI shows it (items of parts). Both directions are pure.

/**
 * The chat thread as the page showed it live, rebuilt from a session's turns (`snapshot.messages`):
 * a tool result (which travels in a user turn) fills in its call's tool part, the model's answer to
 * it joins the same reply, and calls in `pending` (`snapshot.pendingApprovals`) get their
 * `approvalId` back so approve and reject buttons return. A condensation summary reads as the
 * assistant's recap. Thinking, images and documents have no part and are left out; a restored tool
 * result is the text the model was sent (a live part holds the tool's value).
 */
export function itemsFromTurns(turns: readonly Turn[], pending: readonly PendingApproval[] = []): AssistantItem[] {
  const waiting = new Map(pending.map((p) => [p.callId, p]));
  let items: AssistantItem[] = [];
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      if (items[items.length - 1]?.role !== 'assistant') items = [...items, { role: 'assistant', parts: [] }];
      for (const block of turn.blocks) {
        if (block.kind === 'text') items = applyPartToThread(items, items.length - 1, { type: 'text', text: block.text });
        if (block.kind === 'tool_call')
          items = applyPartToThread(items, items.length - 1, callPart(block.id, block.name, block.input, waiting.get(block.id)));
      }
      continue;
    }
    const text = turn.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('');
    for (const block of turn.blocks) {
      if (block.kind !== 'tool_result') continue;
      const found = findToolPart(items, block.callId);
      if (found === null) continue;
      const call = (items[found.item] as { parts: AgentPart[] }).parts[found.part] as AgentToolPart;
      const answered: AgentToolPart = { type: 'tool', name: call.name, callId: call.callId, input: call.input, result: block.content };
      if (block.isError) answered.isError = true;
      items = applyPartToThread(items, found.item, answered);
    }
    if (text === '') continue;
    if (text.startsWith(COMPACTION_PREFIX)) items = [...items, { role: 'assistant', parts: [{ type: 'text', text }] }];
    else items = [...items, { role: 'user', text }];
  }
  return items;
}

function callPart(callId: string, name: string, input: unknown, pending: PendingApproval | undefined): AgentToolPart {
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

/**
 * The turns a chat thread stands for, for a model call that continues it (`runAgent`'s `messages`
 * through `toMessageParams`, or `createConductor`'s `messages`). An assistant item becomes an
 * assistant turn per step: its text and tool calls, then a user turn with the calls' results (as the
 * runtime sends them: a string as it is, anything else as JSON), then the text that answered them.
 * A call still waiting for approval, and memory and context parts, are left out: the model never
 * got a result for the first, and the others are the runtime's own doing, not the conversation's.
 * A recap item (a condensation summary) goes back to the user turn it came from. An item does not
 * keep where one step ended when no text follows its results: two steps that only called tools come
 * back as one step with both calls.
 */
export function turnsFromItems(items: readonly AssistantItem[]): Turn[] {
  const turns: Turn[] = [];
  for (const item of items) {
    if (item.role === 'user') {
      turns.push({ role: 'user', blocks: [{ kind: 'text', text: item.text }] });
      continue;
    }
    const first = item.parts[0];
    if (item.parts.length === 1 && first.type === 'text' && first.text.startsWith(COMPACTION_PREFIX)) {
      turns.push({ role: 'user', blocks: [{ kind: 'text', text: first.text }] });
      continue;
    }
    let said: Block[] = [];
    let results: Block[] = [];
    const flush = () => {
      if (said.length > 0) turns.push({ role: 'assistant', blocks: said });
      if (results.length > 0) turns.push({ role: 'user', blocks: results });
      said = [];
      results = [];
    };
    for (const part of item.parts) {
      if (part.type === 'text') {
        if (results.length > 0) flush();
        said.push({ kind: 'text', text: part.text });
      } else if (part.type === 'tool' && part.approvalId === undefined) {
        said.push({ kind: 'tool_call', id: part.callId, name: part.name, input: part.input });
        results.push({
          kind: 'tool_result',
          callId: part.callId,
          content: toolResultContent(part.result),
          ...(part.isError && { isError: true }),
        });
      }
    }
    flush();
  }
  return turns;
}
