// Opt-in content (`captureContent: true`): turns as the conventions' input and output message schemas,
// serialized to JSON strings, since span attributes cannot hold structured values yet.
import type { Block, MediaSource, StopReason, Turn } from '../runtime/contract/index.js';

type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string }
  | { type: 'blob'; modality: 'image' | 'document'; mime_type: string; content: string }
  | { type: 'uri'; modality: 'image' | 'document'; uri: string };

type Message = { role: 'user' | 'assistant' | 'tool'; parts: Part[] };

/**
 * The chat history as `gen_ai.input.messages`. Tool results travel in user turns here, as in the
 * Anthropic API; the conventions give them a message of role `tool`, so a user turn is split.
 */
export function inputMessages(turns: readonly Turn[]): string {
  const messages: Message[] = [];
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      messages.push({ role: 'assistant', parts: turn.blocks.map(partOf) });
      continue;
    }
    const said = turn.blocks.filter((block) => block.kind !== 'tool_result');
    const results = turn.blocks.filter((block) => block.kind === 'tool_result');
    if (results.length > 0) messages.push({ role: 'tool', parts: results.map(partOf) });
    if (said.length > 0) messages.push({ role: 'user', parts: said.map(partOf) });
  }
  return JSON.stringify(messages);
}

/** A prompt as `gen_ai.input.messages`. */
export function promptMessages(prompt: string): string {
  return JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: prompt }] }]);
}

/** A reply as `gen_ai.output.messages`: one message, with the conventions' finish reason. */
export function outputMessages(turn: Turn, stopReason: StopReason): string {
  return JSON.stringify([{ role: 'assistant', parts: turn.blocks.map(partOf), finish_reason: finishReason(stopReason) }]);
}

/** Final text as `gen_ai.output.messages` (an agent's answer). */
export function answerMessages(text: string): string {
  return JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: text }], finish_reason: 'stop' }]);
}

/** System texts as `gen_ai.system_instructions`; undefined when there are none. */
export function systemInstructions(...texts: Array<string | undefined>): string | undefined {
  const parts = texts.filter((text): text is string => text !== undefined && text !== '').map((content) => ({ type: 'text', content }));
  return parts.length === 0 ? undefined : JSON.stringify(parts);
}

/** A tool's input or result as the conventions want it: the value itself, JSON-encoded. */
export function jsonOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A cyclic or otherwise unserializable value still says what it was.
    return String(value);
  }
}

function partOf(block: Block): Part {
  switch (block.kind) {
    case 'text':
      return { type: 'text', content: block.text };
    case 'thinking':
      return { type: 'reasoning', content: block.text };
    case 'tool_call':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: block.input };
    case 'tool_result':
      return { type: 'tool_call_response', id: block.callId, response: block.content };
    case 'redacted_thinking':
      // The API sent this reasoning encrypted: there is no text to record, only that it happened.
      return { type: 'reasoning', content: '[redacted]' };
    case 'image':
      return mediaPart('image', block.source);
    case 'document':
      return block.source.type === 'text' ? { type: 'text', content: block.source.text } : mediaPart('document', block.source);
  }
}

// Recorded like any other content: only when content capture is on, as the GenAI conventions ask.
function mediaPart(modality: 'image' | 'document', source: MediaSource): Part {
  return source.type === 'url'
    ? { type: 'uri', modality, uri: source.url }
    : { type: 'blob', modality, mime_type: source.mediaType, content: source.data };
}

const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_call',
  refusal: 'content_filter',
};

function finishReason(stopReason: StopReason): string {
  return FINISH_REASONS[stopReason] ?? stopReason;
}
