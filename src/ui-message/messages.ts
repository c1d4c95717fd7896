import { itemsFromTurns } from '../chat/turns.js';
import type { AgentPart } from '../parts/types.js';
import type { PendingApproval, RunSnapshot } from '../runtime/contract/events.js';
import type { AgentDataPart } from './chunks.js';

/** A part of a `UIMessage` as `useChat` renders it: text, or a dynamic tool in the state it reached. */
export type UIMessagePart =
  | { type: 'text'; text: string; state: 'done' }
  | { type: 'dynamic-tool'; toolName: string; toolCallId: string; state: 'input-available'; input: unknown }
  | { type: 'dynamic-tool'; toolName: string; toolCallId: string; state: 'approval-requested'; input: unknown; approval: { id: string } }
  | { type: 'dynamic-tool'; toolName: string; toolCallId: string; state: 'output-available'; input: unknown; output: unknown }
  | { type: 'dynamic-tool'; toolName: string; toolCallId: string; state: 'output-error'; input: unknown; errorText: string }
  /** What a sub-agent call did (`withAgentParts`), as the live stream's `data-agent` parts. */
  | { type: 'data-agent'; id: string; data: AgentDataPart };

/** The `UIMessage` shape of the AI SDK (`ai`), as far as indusagi fills it. */
export type UIMessage = { id: string; role: 'user' | 'assistant'; parts: UIMessagePart[] };

/**
 * A session's conversation as `useChat`'s initial `messages` (after a reload, say): the same thread
 * `itemsFromTurns` rebuilds, in the AI SDK's message shape. Calls waiting for approval come back in
 * `approval-requested`, so the page can still answer them. Pass `snapshot.messages` and
 * `snapshot.pendingApprovals` (or a snapshot); ids are `<prefix>-<index>`.
 */
export function uiMessagesFromTurns(
  snapshot: Pick<RunSnapshot, 'messages'> & { pendingApprovals?: readonly PendingApproval[] },
  idPrefix = 'history',
): UIMessage[] {
  return itemsFromTurns(snapshot.messages, snapshot.pendingApprovals ?? []).map((item, i) => ({
    id: `${idPrefix}-${i}`,
    role: item.role,
    parts: item.role === 'user' ? [{ type: 'text', text: item.text, state: 'done' }] : item.parts.flatMap(uiPart),
  }));
}

function uiPart(part: AgentPart): UIMessagePart[] {
  if (part.type === 'text') return [{ type: 'text', text: part.text, state: 'done' }];
  if (part.type !== 'tool') return [];
  const base = { type: 'dynamic-tool' as const, toolName: part.name, toolCallId: part.callId, input: part.input ?? null };
  if (part.approvalId !== undefined) return [{ ...base, state: 'approval-requested', approval: { id: part.approvalId } }];
  if (part.isError) return [{ ...base, state: 'output-error', errorText: String(part.result) }];
  if (part.result === undefined) return [{ ...base, state: 'input-available' }];
  return [{ ...base, state: 'output-available', output: part.result }];
}
