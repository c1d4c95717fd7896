import type { Turn } from '../contract/turn.js';

/**
 * A turn as plain text, for searching and reading back: text as written, each tool call as its name
 * and JSON input, each result as its content. Thinking is left out: it was never part of what the
 * conversation said.
 */
export function turnText(turn: Turn): string {
  const parts: string[] = [];
  for (const block of turn.blocks) {
    if (block.kind === 'text') parts.push(block.text);
    else if (block.kind === 'tool_call') parts.push(`[call ${block.name} ${JSON.stringify(block.input) ?? ''}]`);
    else if (block.kind === 'tool_result') parts.push(`[result${block.isError ? ' (error)' : ''}] ${block.content}`);
  }
  return parts.join('\n');
}
