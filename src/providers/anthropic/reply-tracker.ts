import type Anthropic from '@anthropic-ai/sdk';
import type { Block, Turn } from '../../runtime/contract/turn.js';
import { MalformedStreamError } from './errors.js';

type Tracked =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'other' };

/**
 * Follows the raw stream events of one reply, so a reply the SDK gives up on can still be used when
 * the only fault is the model's own: tool input that is not valid JSON makes the SDK fail the whole
 * stream at that block's end. The model should instead get an error result for that call and go on.
 */
export class ReplyTracker {
  private readonly blocks: Tracked[] = [];
  private usage: Anthropic.Usage | undefined;
  /** True once any event of the reply arrived: a failure after that is not a failed request but a broken reply. */
  started = false;

  observe(event: Anthropic.MessageStreamEvent): void {
    this.started = true;
    switch (event.type) {
      case 'message_start':
        this.usage = event.message.usage;
        return;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') this.blocks[event.index] = { type: 'text', text: block.text };
        else if (block.type === 'thinking')
          this.blocks[event.index] = { type: 'thinking', text: block.thinking, signature: block.signature };
        else if (block.type === 'redacted_thinking') this.blocks[event.index] = { type: 'redacted_thinking', data: block.data };
        else if (block.type === 'tool_use') this.blocks[event.index] = { type: 'tool_use', id: block.id, name: block.name, json: '' };
        else this.blocks[event.index] = { type: 'other' };
        return;
      }
      case 'content_block_delta': {
        const block = this.blocks[event.index];
        // The SDK drops such a delta without a word, so the text streamed to the user and the reply kept would differ.
        if (block === undefined) throw new MalformedStreamError(`a content_block_delta for block ${event.index}, which never started`);
        const delta = event.delta;
        if (block?.type === 'text' && delta.type === 'text_delta') block.text += delta.text;
        else if (block?.type === 'thinking' && delta.type === 'thinking_delta') block.text += delta.thinking;
        else if (block?.type === 'thinking' && delta.type === 'signature_delta') block.signature = delta.signature;
        else if (block?.type === 'tool_use' && delta.type === 'input_json_delta') block.json += delta.partial_json;
        return;
      }
      default:
        return;
    }
  }

  /**
   * The message with each tool call whose streamed input is not valid JSON carrying that raw text as
   * its input. The SDK parses tool input leniently (a truncated `{"city": "Pu` comes out as a guess
   * such as `{}`), and a tool must not run on a guess: the loop answers raw text with an error result.
   */
  strictInputs<M extends Pick<Anthropic.Message, 'content'>>(message: M): M {
    let changed = false;
    const content = message.content.map((block, index) => {
      const tracked = this.blocks[index];
      if (block.type !== 'tool_use' || tracked?.type !== 'tool_use' || parseJson(tracked.json).ok) return block;
      changed = true;
      return { ...block, input: tracked.json };
    });
    return changed ? { ...message, content } : message;
  }

  /**
   * When `error` is the SDK failing to parse the last tool call's input, the reply up to and including
   * that call, its input kept as the raw text (which the loop answers with an error result). Otherwise
   * undefined: the failure is real and must surface.
   */
  salvage(error: unknown): { turn: Turn; usage: Anthropic.Usage | undefined } | undefined {
    if (!(typeof error === 'object' && error !== null && (error as { cause?: unknown }).cause instanceof SyntaxError)) return undefined;
    const last = this.blocks[this.blocks.length - 1];
    if (last?.type !== 'tool_use' || parseJson(last.json).ok) return undefined;
    const blocks: Block[] = [];
    for (const block of this.blocks) {
      if (block.type === 'text') blocks.push({ kind: 'text', text: block.text });
      else if (block.type === 'thinking') blocks.push({ kind: 'thinking', text: block.text, signature: block.signature });
      else if (block.type === 'redacted_thinking') blocks.push({ kind: 'redacted_thinking', data: block.data });
      else if (block.type === 'tool_use') {
        const parsed = parseJson(block.json);
        blocks.push({ kind: 'tool_call', id: block.id, name: block.name, input: parsed.ok ? parsed.value : block.json });
      }
    }
    return { turn: { role: 'assistant', blocks }, usage: this.usage };
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
