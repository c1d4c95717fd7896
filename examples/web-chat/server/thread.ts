import { uiMessagesFromTurns } from 'indusagi/ui-message';
import type { PendingApproval, Turn } from 'indusagi';
import type { SessionGraph, SessionNode } from 'indusagi/runtime';
import type { UIMessage } from 'indusagi/ui-message';
import { RefusedRequestError } from './refused.js';
import type { StoppedReply } from './stopped.js';

/** Where a message stands among its alternatives: the node ids of every version, in the order they were made. */
export type Versions = { index: number; ids: string[] };

/**
 * What the page needs beside a message's parts to act on it. `node` is the session node the message
 * starts at (a prompt's own node; a reply's first node), what an edit, a regenerate or a branch switch
 * names. `versions` is set when the message has alternatives (edits of a prompt, regenerated replies).
 */
export type MessageInfo = { node?: string; versions?: Versions; editable?: boolean; stopped?: boolean };

export type ThreadMessage = UIMessage & { metadata: MessageInfo };

/**
 * The conversation on the session's live path as `useChat` messages: each prompt, then the reply to
 * it, with the node ids behind them and their alternatives. The whole path is shown, turns that
 * condensation took out of the model's context included (the user still wants to read them); the
 * condensation summaries themselves are left out. A reply the user stopped (kept beside the session,
 * stopped.ts) shows at the end of the exchange it cut off, while that exchange is still on the path.
 */
export function threadOf(graph: SessionGraph, pending: readonly PendingApproval[], stops: readonly StoppedReply[]): ThreadMessage[] {
  if (graph.leaf === null) return [];
  const exchanges: SessionNode[][] = [];
  for (const node of graph.nodesTo(graph.leaf)) {
    if (node.condenses !== undefined) continue;
    if (isPrompt(node.turn) || exchanges.length === 0) exchanges.push([node]);
    else exchanges[exchanges.length - 1].push(node);
  }
  const stoppedAfter = new Map(stops.map((stop) => [stop.after, stop.text]));
  return exchanges.flatMap((exchange) => exchangeMessages(graph, exchange, pending, stoppedAfter.get(exchange.at(-1)!.id)));
}

function exchangeMessages(
  graph: SessionGraph,
  exchange: SessionNode[],
  pending: readonly PendingApproval[],
  stopped: string | undefined,
): ThreadMessage[] {
  const built = uiMessagesFromTurns({ messages: exchange.map((node) => node.turn), pendingApprovals: pending });
  const prompt = isPrompt(exchange[0].turn) ? exchange[0] : undefined;
  const answer = exchange.find((node) => node.turn.role === 'assistant');
  const messages: ThreadMessage[] = built.map((message) => {
    const node = message.role === 'user' ? prompt : answer;
    // A path damage cut short may start with a reply: it shows, with nothing to act on.
    if (node === undefined) return { ...message, id: `${exchange[0].id}-${message.role}`, metadata: {} };
    const info: MessageInfo = { node: node.id };
    const versions = versionsOf(graph, node);
    if (versions !== undefined) info.versions = versions;
    if (message.role === 'user') info.editable = true;
    return { ...message, id: node.id, metadata: info };
  });
  if (stopped === undefined) return messages;
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.parts = [...last.parts, { type: 'text', text: stopped, state: 'done' }];
    last.metadata.stopped = true;
  } else {
    // Stopped before the model said anything the session keeps: the reply is only what the page had been shown.
    messages.push({
      id: `after-${exchange.at(-1)!.id}`,
      role: 'assistant',
      parts: [{ type: 'text', text: stopped, state: 'done' }],
      metadata: { stopped: true },
    });
  }
  return messages;
}

/** A prompt's other versions are its parent's other prompts; a reply's, its prompt's other replies. */
function versionsOf(graph: SessionGraph, node: SessionNode): Versions | undefined {
  const alike = (other: SessionNode) => (node.turn.role === 'assistant' ? other.turn.role === 'assistant' : isPrompt(other.turn));
  const ids = graph
    .children(node.parent)
    .filter(alike)
    .map((sibling) => sibling.id);
  return ids.length > 1 ? { index: ids.indexOf(node.id), ids } : undefined;
}

/** A turn the user typed: text, not only tool results (nor a condensation summary, which carries its own marker). */
function isPrompt(turn: Turn): boolean {
  return turn.role === 'user' && turn.blocks.some((block) => block.kind === 'text' && block.text !== '');
}

/**
 * Where to move the session to answer a prompt again (`regenerate`): before the reply `messageId`
 * names (a reply's first node, or `after-<node>` for a stopped reply the session kept nothing of),
 * or, without an id, before the last reply on the live path.
 */
export function regenerateFrom(graph: SessionGraph, messageId: string | undefined): string {
  if (messageId === undefined) {
    const path = graph.leaf === null ? [] : graph.nodesTo(graph.leaf);
    const prompt = path.findLast((node) => isPrompt(node.turn));
    if (prompt === undefined)
      throw new RefusedRequestError(409, 'nothing_to_regenerate', 'This conversation has no prompt to answer again.');
    return prompt.id;
  }
  if (messageId.startsWith('after-')) return nodeOf(graph, messageId.slice('after-'.length)).id;
  const reply = nodeOf(graph, messageId);
  if (reply.turn.role !== 'assistant' || reply.parent === null) throw unknownMessage();
  return reply.parent;
}

/**
 * Where to move the session to send an edited version of the prompt `messageId`: the node before it,
 * or null for a conversation's first prompt (the edit then starts a new root beside the old one).
 */
export function editFrom(graph: SessionGraph, messageId: string): string | null {
  const prompt = nodeOf(graph, messageId);
  if (!isPrompt(prompt.turn)) throw unknownMessage();
  return prompt.parent;
}

/**
 * Where to move the session to show the version of a message that starts at `messageId`: the end of
 * its newest branch. A reply still waiting for a decision (or cut off) has calls without results, and
 * the session cannot continue from there: the branch is shown up to the prompt before it.
 */
export function switchTo(graph: SessionGraph, messageId: string): string {
  let newest: SessionNode | undefined;
  for (const below = [nodeOf(graph, messageId)]; below.length > 0;) {
    const node = below.pop()!;
    const children = graph.children(node.id);
    if (children.length === 0 && (newest === undefined || node.at >= newest.at)) newest = node;
    below.push(...children);
  }
  let end = newest!;
  while (end.turn.role === 'assistant' && end.turn.blocks.some((block) => block.kind === 'tool_call') && end.parent !== null) {
    end = graph.node(end.parent)!;
  }
  return end.id;
}

function nodeOf(graph: SessionGraph, id: string): SessionNode {
  const node = graph.node(id);
  if (node === undefined) throw unknownMessage();
  return node;
}

const unknownMessage = () =>
  new RefusedRequestError(404, 'unknown_message', 'This conversation has no such message; reload the page to see it as it stands.');
