import type { Block, Turn } from '../contract/turn.js';
import type { ModelTool } from '../contract/model.js';
import { CompactionInputError } from './errors.js';
import { documentTokens, imageTokens } from './media.js';

/**
 * The footprint heuristic: no tokenizer, about 4 characters a token, plus a per-turn surcharge for
 * the role and framing the API adds. English prose runs nearer 4.5 characters a token, so this errs
 * toward compacting a little early; dense JSON and code run nearer 3, which the trigger ratio's
 * headroom and usage calibration absorb.
 */
export const CHARS_PER_TOKEN = 4;
export const TURN_SURCHARGE_TOKENS = 4;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** One turn's estimated tokens: every block counts, tool inputs (as JSON) and results included. */
export function estimateTurnTokens(turn: Turn): number {
  if (typeof turn !== 'object' || turn === null || !Array.isArray(turn.blocks)) {
    throw new CompactionInputError('every turn must be an object with a `blocks` array');
  }
  let chars = 0;
  for (const block of turn.blocks) chars += blockChars(block);
  return TURN_SURCHARGE_TOKENS + Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The estimated tokens of a whole conversation: the sum of its turns. */
export function estimateContextTokens(messages: readonly Turn[]): number {
  if (!Array.isArray(messages)) throw new CompactionInputError('messages must be an array of turns');
  let total = 0;
  for (const turn of messages) total += estimateTurnTokens(turn);
  return total;
}

// A tool list is counted once: an agent's list is one array for every conversation opened from its
// definition (each conversation's compaction counts it as it opens), and a list the loop sends is read
// as the immutable value its `readonly` type says it is.
const toolTokens = new WeakMap<readonly ModelTool[], number>();

/** Tool definitions travel with every request; their schemas count like any other text. */
export function estimateToolsTokens(tools: readonly ModelTool[]): number {
  if (tools.length === 0) return 0;
  let tokens = toolTokens.get(tools);
  if (tokens === undefined) {
    tokens = Math.ceil(jsonLength(tools, 'tool definitions') / CHARS_PER_TOKEN);
    if (typeof tools === 'object' && tools !== null) toolTokens.set(tools, tokens);
  }
  return tokens;
}

function blockChars(block: Block): number {
  switch (block?.kind) {
    case 'text':
    case 'thinking':
      return text(block.text, block.kind);
    case 'redacted_thinking':
      // Encrypted reasoning: its length stands in for the tokens it decrypts to.
      return text(block.data, 'redacted_thinking data');
    // Media are counted in tokens (see media.ts); as characters they come back out the same.
    case 'image':
      media(block);
      return imageTokens(block) * CHARS_PER_TOKEN;
    case 'document':
      media(block);
      return documentTokens(block, CHARS_PER_TOKEN) * CHARS_PER_TOKEN;
    case 'tool_call':
      return text(block.id, 'tool_call id') + text(block.name, 'tool_call name') + jsonLength(block.input, 'tool_call input');
    case 'tool_result':
      return text(block.callId, 'tool_result callId') + text(block.content, 'tool_result content');
    default:
      throw new CompactionInputError(`unknown block kind ${JSON.stringify((block as { kind?: unknown } | null)?.kind)}`);
  }
}

function media(block: { kind: string; source?: unknown }): void {
  const source = block.source as { type?: unknown; data?: unknown; url?: unknown; text?: unknown } | undefined;
  const ok =
    typeof source === 'object' &&
    source !== null &&
    ((source.type === 'base64' && typeof source.data === 'string') ||
      (source.type === 'url' && typeof source.url === 'string') ||
      (block.kind === 'document' && source.type === 'text' && typeof source.text === 'string'));
  if (!ok)
    throw new CompactionInputError(
      `${block.kind === 'image' ? 'an image' : 'a document'} block needs a base64, url${block.kind === 'document' ? ' or text' : ''} source`,
    );
}

function text(value: unknown, what: string): number {
  if (typeof value !== 'string') throw new CompactionInputError(`${what} must be a string`);
  return value.length;
}

function jsonLength(value: unknown, what: string): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch (cause) {
    throw new CompactionInputError(`${what} cannot be serialized as JSON`, { cause });
  }
}
