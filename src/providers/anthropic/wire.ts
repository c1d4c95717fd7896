import type Anthropic from '@anthropic-ai/sdk';
import type { Block, MediaSource, Turn } from '../../runtime/contract/turn.js';
import type { ModelUsage } from '../../runtime/contract/model.js';
import { UnsupportedMessageError } from './errors.js';

/**
 * Turns -> the API's messages. Thinking blocks go back exactly as the model gave them, signature and
 * all, and redacted ones with their data: with thinking on, the API requires the last reply's thinking
 * in a tool loop, unchanged. A thinking block without a signature (from a caller's own messages, or
 * another provider) is dropped, since the API rejects it; so are text blocks with no visible text.
 * Consecutive turns of one role merge into one message, because the API requires user and assistant to
 * alternate (a batch's tool results may span several turns, and a prompt may follow results after a
 * failed run).
 */
export function toMessageParams(turns: readonly Turn[]): Anthropic.MessageParam[] {
  const messages: Array<Anthropic.UserMessageParam | Anthropic.AssistantMessageParam> = [];
  let last: { role: Turn['role']; content: Anthropic.ContentBlockParam[] } | undefined;
  for (const turn of turns) {
    const content: Anthropic.ContentBlockParam[] = [];
    for (const block of turn.blocks) {
      const param = toBlockParam(block);
      if (param !== undefined) content.push(param);
    }
    if (content.length === 0) continue;
    if (last !== undefined && last.role === turn.role) {
      for (const param of content) last.content.push(param);
    } else {
      last = { role: turn.role, content };
      messages.push(last as Anthropic.UserMessageParam | Anthropic.AssistantMessageParam);
    }
  }
  return messages;
}

function toBlockParam(block: Block): Anthropic.ContentBlockParam | undefined {
  switch (block.kind) {
    case 'text':
      return block.text.trim() === '' ? undefined : { type: 'text', text: block.text };
    case 'thinking':
      return block.signature ? { type: 'thinking', thinking: block.text, signature: block.signature } : undefined;
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'image':
      return {
        type: 'image',
        source:
          block.source.type === 'url'
            ? { type: 'url', url: block.source.url }
            : { type: 'base64', media_type: block.source.mediaType as Anthropic.Base64ImageSource['media_type'], data: block.source.data },
      };
    case 'document': {
      const source = block.source;
      const param: Anthropic.DocumentBlockParam = {
        type: 'document',
        source:
          source.type === 'url'
            ? { type: 'url', url: source.url }
            : source.type === 'text'
              ? { type: 'text', media_type: 'text/plain', data: source.text }
              : { type: 'base64', media_type: 'application/pdf', data: source.data },
      };
      if (block.title !== undefined) param.title = block.title;
      return param;
    }
    case 'tool_call':
      // A call whose input never parsed is stored with its raw text; the API only takes objects.
      return { type: 'tool_use', id: block.id, name: block.name, input: isPlainObject(block.input) ? block.input : {} };
    case 'tool_result': {
      const param: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: block.callId };
      if (block.content !== '') param.content = block.content;
      if (block.isError) param.is_error = true;
      return param;
    }
  }
}

/** The API's reply -> an assistant turn, thinking (redacted too) kept verbatim. Server-side blocks have no turn form and are left out. */
export function fromMessage(message: Pick<Anthropic.Message, 'content'>): Turn {
  const blocks: Block[] = [];
  for (const block of message.content) {
    if (block.type === 'text') blocks.push({ kind: 'text', text: block.text });
    else if (block.type === 'thinking') blocks.push({ kind: 'thinking', text: block.thinking, signature: block.signature });
    else if (block.type === 'redacted_thinking') blocks.push({ kind: 'redacted_thinking', data: block.data });
    else if (block.type === 'tool_use') blocks.push({ kind: 'tool_call', id: block.id, name: block.name, input: block.input });
  }
  return { role: 'assistant', blocks };
}

/**
 * The caller's messages -> turns (new objects; the caller's array is never touched). Throws
 * `UnsupportedMessageError` for content a turn cannot carry rather than dropping it unseen.
 */
export function fromMessageParams(messages: readonly Anthropic.MessageParam[]): Turn[] {
  return messages.map((message, index) => {
    if (message.role !== 'user' && message.role !== 'assistant') {
      throw new UnsupportedMessageError(index, `role "${String(message.role)}" is not supported; pass the system prompt as \`system\`.`);
    }
    if (typeof message.content === 'string') return { role: message.role, blocks: [{ kind: 'text', text: message.content }] };
    const blocks: Block[] = [];
    for (const param of message.content) {
      switch (param.type) {
        case 'text':
          blocks.push({ kind: 'text', text: param.text });
          break;
        case 'thinking':
          blocks.push({ kind: 'thinking', text: param.thinking, signature: param.signature });
          break;
        case 'redacted_thinking':
          blocks.push({ kind: 'redacted_thinking', data: param.data });
          break;
        case 'tool_use':
          blocks.push({ kind: 'tool_call', id: param.id, name: param.name, input: param.input });
          break;
        case 'image':
          blocks.push({ kind: 'image', source: mediaSourceOf(param.source, index) });
          break;
        case 'document': {
          const source = param.source;
          const block: Block =
            source.type === 'text'
              ? { kind: 'document', source: { type: 'text', text: source.data } }
              : { kind: 'document', source: mediaSourceOf(source, index) };
          if (typeof param.title === 'string') block.title = param.title;
          blocks.push(block);
          break;
        }
        case 'tool_result': {
          const block: Block = { kind: 'tool_result', callId: param.tool_use_id, content: resultText(param, index) };
          if (param.is_error) block.isError = true;
          blocks.push(block);
          break;
        }
        default:
          throw new UnsupportedMessageError(index, `content blocks of type "${param.type}" are not supported.`);
      }
    }
    return { role: message.role, blocks };
  });
}

function mediaSourceOf(source: { type: string; media_type?: string; data?: string; url?: string }, index: number): MediaSource {
  if (source.type === 'base64' && typeof source.data === 'string' && typeof source.media_type === 'string')
    return { type: 'base64', mediaType: source.media_type, data: source.data };
  if (source.type === 'url' && typeof source.url === 'string') return { type: 'url', url: source.url };
  throw new UnsupportedMessageError(index, `media sources of type "${source.type}" are not supported (base64, url).`);
}

function resultText(param: Anthropic.ToolResultBlockParam, index: number): string {
  if (param.content === undefined || typeof param.content === 'string') return param.content ?? '';
  let text = '';
  for (const part of param.content) {
    if (part.type !== 'text') throw new UnsupportedMessageError(index, `tool results holding "${part.type}" blocks are not supported.`);
    text += part.text;
  }
  return text;
}

/** The API's usage (final, cumulative counts) in indusagi's shape; `cacheWrite1hTokens` only when the API reported some. */
export function toModelUsage(usage: Partial<Anthropic.Usage> | undefined): ModelUsage {
  const result: ModelUsage = {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
  };
  const write1h = usage?.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  if (write1h > 0) result.cacheWrite1hTokens = Math.min(write1h, result.cacheWriteTokens);
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
