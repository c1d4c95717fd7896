import type { SessionNode } from '../../runtime/contract/session.js';
import type { Block, Turn } from '../../runtime/contract/turn.js';
import type { SessionGraph } from '../../runtime/store/graph.js';
import { CliUsageError } from '../errors.js';
import { terminalText } from '../safe-text.js';
import { mediaLabel } from '../../runtime/compaction/media.js';

/** How many hex digits of a node id the command shows; any unique prefix of at least 4 is accepted back. */
const SHORT_ID = 8;
const MIN_PREFIX = 4;

export function shortId(id: string): string {
  return id.slice(0, SHORT_ID);
}

/** Every node, parents before children, siblings in the order they were added. Iterative: sessions can be deep. */
export function* walk(graph: SessionGraph): Generator<SessionNode> {
  const stack = graph.children(null).reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    yield node;
    stack.push(...graph.children(node.id).reverse());
  }
}

/** The node a user named by its full id or a unique prefix; anything else is a one-line usage error. */
export function resolveNode(graph: SessionGraph, given: string): SessionNode {
  const wanted = given.trim().toLowerCase();
  const exact = graph.node(wanted);
  if (exact) return exact;
  if (wanted.length < MIN_PREFIX || !/^[0-9a-f]+$/.test(wanted)) {
    throw new CliUsageError(`"${given}" is not a node id of session ${graph.sessionId} (give at least ${MIN_PREFIX} hex digits)`);
  }
  const matches = [...walk(graph)].filter((node) => node.id.startsWith(wanted));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new CliUsageError(`session ${graph.sessionId} has no node ${given}`);
  throw new CliUsageError(`node prefix ${given} is ambiguous in session ${graph.sessionId} (${matches.length} nodes); give more digits`);
}

/** One line about a turn: its text, or the tool calls and results it carries. */
export function excerpt(turn: Turn, max = 72): string {
  return clipLine(
    turn.blocks
      .map(describeBlock)
      .filter((s) => s !== '')
      .join(' '),
    max,
  );
}

/** `text` folded onto one line, cut to `max` characters and made safe for a terminal. */
export function clipLine(text: string, max = 72): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return terminalText(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}

function describeBlock(block: Block): string {
  switch (block.kind) {
    case 'text':
      return block.text;
    case 'thinking':
    case 'redacted_thinking':
      return '';
    case 'image':
    case 'document':
      return mediaLabel(block);
    case 'tool_call':
      return `→ ${block.name}(${JSON.stringify(block.input)})`;
    case 'tool_result':
      return `← ${block.isError ? 'error: ' : ''}${block.content}`;
  }
}
