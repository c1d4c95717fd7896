import type { DemoReply, DemoReplyBlock } from './responder.js';

/** One server-sent event of the Anthropic streaming format: its `event:` name and `data:` JSON. */
export type WireEvent = { event: string; data: Record<string, unknown> };

/**
 * The events a streamed reply travels as, in the order the real API sends them: message_start,
 * a ping, then per block start / deltas / stop, then message_delta (stop reason, final usage) and
 * message_stop. Text goes out a few words per delta and tool input as partial JSON, so clients
 * exercise the same accumulation they do against Claude.
 */
export function* replyEvents(reply: DemoReply): Generator<WireEvent> {
  yield {
    event: 'message_start',
    data: {
      type: 'message_start',
      message: { ...messageEnvelope(reply), content: [], stop_reason: null, usage: usage(reply.usage.inputTokens, 1) },
    },
  };
  yield { event: 'ping', data: { type: 'ping' } };
  for (const [index, block] of reply.content.entries()) {
    yield { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: emptyBlock(block) } };
    for (const delta of blockDeltas(block)) {
      yield { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } };
    }
    yield { event: 'content_block_stop', data: { type: 'content_block_stop', index } };
  }
  yield {
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: reply.stopReason, stop_sequence: null },
      usage: { input_tokens: reply.usage.inputTokens, output_tokens: reply.usage.outputTokens },
    },
  };
  yield { event: 'message_stop', data: { type: 'message_stop' } };
}

/** The reply as one non-streamed Messages API response body. */
export function replyMessage(reply: DemoReply): Record<string, unknown> {
  return {
    ...messageEnvelope(reply),
    content: reply.content,
    stop_reason: reply.stopReason,
    usage: usage(reply.usage.inputTokens, reply.usage.outputTokens),
  };
}

/** An SSE frame exactly as it goes on the wire. */
export function encodeFrame(event: WireEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

function messageEnvelope(reply: DemoReply) {
  return { id: reply.id, type: 'message', role: 'assistant', model: reply.model, stop_sequence: null };
}

function usage(inputTokens: number, outputTokens: number) {
  return { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function emptyBlock(block: DemoReplyBlock): Record<string, unknown> {
  return block.type === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: block.id, name: block.name, input: {} };
}

function blockDeltas(block: DemoReplyBlock): Record<string, unknown>[] {
  if (block.type === 'text') return textChunks(block.text).map((text) => ({ type: 'text_delta', text }));
  return jsonChunks(JSON.stringify(block.input)).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
}

/** Three words (with their trailing space) per delta: small enough that streaming is visible. */
function textChunks(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += 3) chunks.push(words.slice(i, i + 3).join(''));
  return chunks;
}

function jsonChunks(json: string): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < json.length; i += 12) chunks.push(json.slice(i, i + 12));
  return chunks;
}
