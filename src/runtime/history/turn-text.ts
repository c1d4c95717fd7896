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

/**
 * Up to `max` characters of `text` around the first place one of `words` occurs (case-insensitively),
 * on word boundaries where it can; the start of the text when none occurs. Marked with … where cut.
 */
export function excerptAround(text: string, words: readonly string[], max: number): string {
  if (text.length <= max) return text;
  const lower = text.toLowerCase();
  let at = -1;
  for (const word of words) {
    const found = lower.indexOf(word.toLowerCase());
    if (found !== -1 && (at === -1 || found < at)) at = found;
  }
  const start = at <= max / 3 ? 0 : wordStart(text, at - Math.floor(max / 3));
  const end = Math.min(text.length, start + max);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

function wordStart(text: string, from: number): number {
  const space = text.indexOf(' ', from);
  return space === -1 || space - from > 20 ? from : space + 1;
}
