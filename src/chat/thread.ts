import type { AgentNestedPart, AgentPart } from '../parts/types.js';
import type { AssistantItem } from './types.js';

// Pure, copy-on-write updates: every change returns new arrays and items and leaves the old ones
// untouched, so snapshots handed to renderers never change under them.

/**
 * Adds a part to one assistant item's parts: text joins a text part right before it; anything else is
 * appended. A sub-agent's text joins that sub-agent's own text part when nothing else of that
 * sub-agent came after it (sub-agents running side by side interleave their parts).
 */
export function appendPartToReply(parts: readonly AgentPart[], part: AgentPart): AgentPart[] {
  if (part.type === 'nested' && part.part.type === 'text') {
    const at = parts.findLastIndex((p) => p.type === 'nested' && sameCalls(p, part));
    const before = parts[at] as AgentNestedPart | undefined;
    if (before?.part.type === 'text') {
      const joined: AgentNestedPart = { ...before, part: { type: 'text', text: before.part.text + part.part.text } };
      return parts.map((p, i) => (i === at ? joined : p));
    }
    return [...parts, part];
  }
  const last = parts[parts.length - 1];
  if (part.type === 'text' && last?.type === 'text') {
    return [...parts.slice(0, -1), { type: 'text', text: last.text + part.text }];
  }
  // An output part holds the whole answer so far: it replaces the one before it.
  if (part.type === 'output') {
    const at = parts.findIndex((p) => p.type === 'output');
    if (at !== -1) return parts.map((p, i) => (i === at ? part : p));
  }
  return [...parts, part];
}

/**
 * Where the tool part for `callId` sits in the thread, searching from the newest item: the agent's
 * own, or with `under` (a nested part) that sub-agent's.
 */
export function findToolPart(
  items: readonly AssistantItem[],
  callId: string,
  under?: AgentNestedPart,
): { item: number; part: number } | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.role !== 'assistant') continue;
    const index = item.parts.findIndex((p) =>
      under === undefined
        ? p.type === 'tool' && p.callId === callId
        : p.type === 'nested' && p.part.type === 'tool' && p.part.callId === callId && sameCalls(p, under),
    );
    if (index !== -1) return { item: i, part: index };
  }
  return null;
}

function sameCalls(a: AgentNestedPart, b: AgentNestedPart): boolean {
  return a.calls.length === b.calls.length && a.calls.every((id, i) => id === b.calls[i]);
}

/**
 * Applies a part to the thread. A tool part whose `callId` is already in the thread replaces that part
 * where it stands (the later part is the newer truth, e.g. the executed result after an approval);
 * every other part goes into the assistant item at `target`.
 */
export function applyPartToThread(items: readonly AssistantItem[], target: number, part: AgentPart): AssistantItem[] {
  const existing =
    part.type === 'tool'
      ? findToolPart(items, part.callId)
      : part.type === 'nested' && part.part.type === 'tool'
        ? findToolPart(items, part.part.callId, part)
        : null;
  if (existing) return replaceAt(items, existing.item, (parts) => parts.map((p, i) => (i === existing.part ? part : p)));
  return replaceAt(items, target, (parts) => appendPartToReply(parts, part));
}

function replaceAt(items: readonly AssistantItem[], index: number, update: (parts: readonly AgentPart[]) => AgentPart[]): AssistantItem[] {
  const item = items[index];
  if (item?.role !== 'assistant') throw new RangeError(`Item ${index} is not an assistant item.`);
  const next = items.slice();
  next[index] = { role: 'assistant', parts: update(item.parts) };
  return next;
}
