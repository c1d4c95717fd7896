import type { SessionGraph } from '../../runtime/store/index.js';
import type { SessionNode } from '../../runtime/contract/session.js';
import type { Turn } from '../../runtime/contract/turn.js';
import type { PendingApproval } from '../../runtime/contract/events.js';
import { uiMessagesFromTurns, type UIMessage } from '../../ui-message/messages.js';
import { NotFoundError, ServerRequestError } from '../errors.js';

/** Where a message stands among its alternatives: the node ids of every version, in the order they were made. */
export type Versions = { index: number; ids: string[] };

/**
 * What a page needs beside a message's parts to act on it (`UIMessage.metadata`). `node` is the session
 * node the message starts at (a prompt's own node, a reply's first node), also the message's id: what
 * an edit, a regenerate or a version switch names. `versions` is set when the message has alternatives
 * (edits of a prompt, regenerated replies). `stopped` marks a reply whose run was canceled mid-text:
 * what it had said is kept only in the run's events, so it has no node of its own.
 */
export type MessageInfo = { node?: string; versions?: Versions; stopped?: true };

export type ThreadMessage = UIMessage & { metadata: MessageInfo };

/**
 * The thread on the session's live path as `useChat` messages: each prompt, then the reply to it, named
 * by the node ids behind them, with their alternatives. The whole path is shown, turns condensation
 * took out of the model's context included (the user still wants to read them); the condensation
 * summaries themselves are left out. Load the graph whole first (`loadWhole`): versions are siblings.
 */
export function threadMessagesOf(graph: SessionGraph, pending: readonly PendingApproval[]): ThreadMessage[] {
  if (graph.leaf === null) return [];
  const exchanges: SessionNode[][] = [];
  for (const node of graph.nodesTo(graph.leaf)) {
    if (node.condenses !== undefined) continue;
    if (isPrompt(node.turn) || exchanges.length === 0) exchanges.push([node]);
    else exchanges[exchanges.length - 1].push(node);
  }
  return exchanges.flatMap((exchange) => exchangeMessages(graph, exchange, pending));
}

function exchangeMessages(graph: SessionGraph, exchange: SessionNode[], pending: readonly PendingApproval[]): ThreadMessage[] {
  const built = uiMessagesFromTurns({ messages: exchange.map((node) => node.turn), pendingApprovals: pending });
  const prompt = isPrompt(exchange[0].turn) ? exchange[0] : undefined;
  const answer = exchange.find((node) => node.turn.role === 'assistant');
  return built.map((message) => {
    const node = message.role === 'user' ? prompt : answer;
    // A path that damage cut short may start with a reply: it shows, with nothing to act on.
    if (node === undefined) return { ...message, id: `${exchange[0].id}-${message.role}`, metadata: {} };
    const versions = versionsOf(graph, node);
    return { ...message, id: node.id, metadata: versions === undefined ? { node: node.id } : { node: node.id, versions } };
  });
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
 * Where to move the session to answer a prompt again (a regenerate): before the reply `messageId`
 * names, or, without an id, before the last reply on the live path (at the last prompt).
 */
export function regenerateFrom(graph: SessionGraph, messageId: string | undefined): string {
  if (messageId === undefined) {
    const path = graph.leaf === null ? [] : graph.nodesTo(graph.leaf);
    const prompt = path.findLast((node) => isPrompt(node.turn));
    if (prompt === undefined) throw new ServerRequestError('This thread has no prompt to answer again.');
    return prompt.id;
  }
  const reply = nodeOf(graph, messageId);
  if (reply.turn.role !== 'assistant' || reply.parent === null)
    throw new ServerRequestError(`Message ${JSON.stringify(messageId)} is not a reply: only a reply can be regenerated.`);
  return reply.parent;
}

/**
 * Where to move the session to send an edited version of the prompt `messageId`: the node before it,
 * or null for a thread's first prompt (the edit then starts a new root beside the old one).
 */
export function editFrom(graph: SessionGraph, messageId: string): string | null {
  const prompt = nodeOf(graph, messageId);
  if (!isPrompt(prompt.turn))
    throw new ServerRequestError(`Message ${JSON.stringify(messageId)} is not a prompt: only a prompt can be edited.`);
  return prompt.parent;
}

/**
 * Where to move the session to show the version of a message that starts at `messageId`: the end of
 * its newest branch. A reply still waiting for a decision (or cut off) has calls without results, and
 * the session cannot go on from there: that branch is shown up to the prompt before it.
 */
export function versionEnd(graph: SessionGraph, messageId: string): string {
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
  if (node === undefined) throw new NotFoundError('message', id);
  return node;
}
