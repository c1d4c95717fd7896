import type { Block, Turn } from '../contract/turn.js';
import { isSummaryTurn, summaryBody } from './summary-turn.js';
import { mediaLabel } from './media.js';

/** Per-block caps: a tool's output is rarely worth more than its head and tail to a summary. */
export const TOOL_RESULT_CLIP_CHARS = 2_000;
export const TOOL_INPUT_CLIP_CHARS = 1_000;

/** What the summarizer reads: earlier summaries to carry forward, and the dropped turns as text. */
export type RenderedHistory = { carried: string | null; transcript: string };

/**
 * Renders dropped turns for the summarizer within `maxChars` characters, all parts together:
 * - earlier summary turns are taken out of the transcript and returned whole as `carried`, unless
 *   they exceed half the budget, in which case they are clipped in the middle;
 * - tool inputs and results are clipped to their head and tail (`TOOL_*_CLIP_CHARS`), because
 *   identifiers tend to sit at either end of them;
 * - thinking blocks (redacted ones too) are left out: their conclusions are in the text and calls that follow;
 * - an image or document is named, not rendered (`[image, image/png]`): a summary cannot carry its bytes;
 * - if the transcript still exceeds what is left, its middle is elided, keeping the opening (where the
 *   goal usually is) and the end (where the latest progress is).
 * Every cut is marked with the number of characters removed, so the summarizer knows it happened.
 */
export function renderForSummary(turns: readonly Turn[], maxChars: number): RenderedHistory {
  const summaries: string[] = [];
  const rendered: string[] = [];
  for (const turn of turns) {
    if (isSummaryTurn(turn)) summaries.push(summaryBody(turn));
    else rendered.push(renderTurn(turn));
  }
  const carried = summaries.length === 0 ? null : clipMiddle(summaries.join('\n\n'), Math.floor(maxChars / 2));
  const transcript = clipMiddle(rendered.filter((t) => t !== '').join('\n\n'), maxChars - (carried?.length ?? 0));
  return { carried, transcript };
}

function renderTurn(turn: Turn): string {
  const speaker = turn.role === 'user' ? 'User' : 'Assistant';
  return turn.blocks
    .map((block) => renderBlock(speaker, block))
    .filter((line) => line !== '')
    .join('\n');
}

function renderBlock(speaker: string, block: Block): string {
  switch (block.kind) {
    case 'text':
      return `${speaker}: ${block.text}`;
    case 'thinking':
    case 'redacted_thinking':
      return '';
    case 'image':
    case 'document':
      return `${speaker} attached ${mediaLabel(block)}`;
    case 'tool_call':
      return `Assistant called tool ${block.name} [call ${block.id}] with input: ${clipMiddle(JSON.stringify(block.input) ?? 'none', TOOL_INPUT_CLIP_CHARS)}`;
    case 'tool_result':
      return `Tool result [call ${block.callId}]${block.isError ? ' (error)' : ''}: ${clipMiddle(block.content, TOOL_RESULT_CLIP_CHARS)}`;
  }
}

/**
 * `text` within `maxChars` characters: unchanged when it fits, else its head and tail around a marker
 * saying how many characters were cut.
 */
function clipMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  // Sized for the largest possible count, so the real marker is never longer than planned.
  const markerLength = marker(text.length).length;
  if (maxChars <= markerLength) return marker(text.length).slice(0, Math.max(0, maxChars));
  const keep = maxChars - markerLength;
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return text.slice(0, head) + marker(text.length - keep) + (tail > 0 ? text.slice(text.length - tail) : '');
}

function marker(cut: number): string {
  return `\n…[${cut} characters clipped]…\n`;
}
