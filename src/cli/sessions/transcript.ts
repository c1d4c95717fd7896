import type { SessionNode } from '../../runtime/contract/session.js';
import type { Block } from '../../runtime/contract/turn.js';
import type { SessionGraph } from '../../runtime/store/graph.js';
import { terminalJson, terminalText } from '../safe-text.js';
import type { Paint } from '../style.js';
import { shortId, walk } from './nodes.js';
import { mediaLabel } from '../../runtime/compaction/media.js';

/** The nodes of the live branch, root first; empty for an empty session. */
function liveBranch(graph: SessionGraph): SessionNode[] {
  return graph.leaf === null ? [] : graph.nodesTo(graph.leaf);
}

/** A one-line overview: size, branch ends and the live leaf. */
export function describeSession(graph: SessionGraph): string {
  const tips = graph.tips().length;
  const leaf = graph.leaf === null ? 'none' : shortId(graph.leaf);
  return `session ${graph.sessionId}: ${graph.size} nodes, ${tips} branch end${tips === 1 ? '' : 's'}, live leaf ${leaf}`;
}

/** The live branch as a readable transcript for the terminal. */
export function renderTranscript(graph: SessionGraph, paint: Paint): string[] {
  const lines = [paint('bold', describeSession(graph))];
  for (const node of liveBranch(graph)) {
    const summary = node.condenses !== undefined ? ' (summary of earlier turns)' : '';
    lines.push('', `${paint('yellow', shortId(node.id))} ${paint('bold', node.turn.role)}${summary}`);
    for (const block of node.turn.blocks) lines.push(...indent(terminalText(blockText(block))));
  }
  return lines;
}

/**
 * The live branch as Markdown: a heading per turn, tool calls and results in fenced blocks. A document
 * for people, printed or saved and printed later, so steering characters are written out as escapes;
 * the JSON export is the lossless one.
 */
export function exportMarkdown(graph: SessionGraph): string {
  const branch = liveBranch(graph);
  const parts = [
    `# Session ${graph.sessionId}`,
    `Exported by indusagi: the live branch, ${branch.length} turns, ending at node \`${graph.leaf ?? 'none'}\`.`,
  ];
  for (const node of branch) {
    const who = node.turn.role === 'user' ? 'User' : 'Assistant';
    const summary = node.condenses !== undefined ? ' (summary of earlier turns)' : '';
    parts.push(`## ${who}${summary} · \`${shortId(node.id)}\` · ${new Date(node.at).toISOString()}`);
    for (const block of node.turn.blocks) parts.push(blockMarkdown(block));
  }
  return terminalText(`${parts.filter((p) => p !== '').join('\n\n')}\n`);
}

/**
 * Every node of every branch, lossless, plus the live leaf: what a script needs to rebuild the session.
 * Steering characters JSON leaves raw are `\u`-escaped: the same value, safe to print.
 */
export function exportJson(graph: SessionGraph): string {
  return `${terminalJson(JSON.stringify({ sessionId: graph.sessionId, leaf: graph.leaf, nodes: [...walk(graph)] }, null, 2))}\n`;
}

function blockText(block: Block): string {
  switch (block.kind) {
    case 'text':
      return block.text;
    case 'thinking':
      return `(thinking) ${block.text}`;
    case 'redacted_thinking':
      return '(thinking, redacted)';
    case 'image':
    case 'document':
      return mediaLabel(block);
    case 'tool_call':
      return `→ ${block.name} ${JSON.stringify(block.input)}`;
    case 'tool_result':
      return `← ${block.isError ? 'error: ' : ''}${block.content}`;
  }
}

function blockMarkdown(block: Block): string {
  switch (block.kind) {
    case 'text':
      return block.text;
    case 'thinking':
    case 'redacted_thinking':
      return '';
    case 'image':
    case 'document':
      return `*${mediaLabel(block)}*`;
    case 'tool_call':
      return `**Tool call** \`${block.name}\`\n\n${fence(JSON.stringify(block.input, null, 2), 'json')}`;
    case 'tool_result':
      return `**Tool ${block.isError ? 'error' : 'result'}**\n\n${fence(block.content, '')}`;
  }
}

/** A fence longer than any backtick run inside, so file contents cannot close it early. */
function fence(text: string, lang: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

function indent(text: string): string[] {
  return text.split('\n').map((line) => `  ${line}`);
}
