import type OpenAI from 'openai';
import type { ModelReply, StopReason } from '../../runtime/contract/model.js';
import type { Block } from '../../runtime/contract/turn.js';
import { ModelCallError } from '../../runtime/loop/errors.js';
import { failedResponseError } from './failures.js';
import { openAIModelUsage } from './wire.js';

type Event = OpenAI.Responses.ResponseStreamEvent;

type Item =
  | { type: 'text'; text: string; refusal: boolean }
  | { type: 'thinking'; text: string }
  | { type: 'call'; id: string; name: string; arguments: string }
  | { type: 'other' };

/**
 * Builds one reply from the Responses API's stream events. Items are kept by `output_index`, filled by
 * the deltas and replaced by each `output_item.done`, which carries the item whole. The reply exists
 * only once a terminal event arrived: `response.completed`, `response.incomplete` (cut off: the stop
 * reason says why), or `response.failed` (thrown as a typed error).
 */
export class ReplyAssembler {
  private readonly items: Item[] = [];
  private finished: ModelReply | undefined;

  constructor(private readonly onText?: (delta: string) => void) {}

  observe(event: Event): void {
    switch (event.type) {
      case 'response.output_item.added':
      case 'response.output_item.done':
        this.items[event.output_index] = itemOf(event.item);
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const item = this.items[event.output_index];
        if (item?.type === 'text') {
          item.text += event.delta;
          if (event.type === 'response.refusal.delta') item.refusal = true;
        }
        this.onText?.(event.delta);
        return;
      }
      case 'response.reasoning_summary_text.delta': {
        const item = this.items[event.output_index];
        if (item?.type === 'thinking') item.text += event.delta;
        return;
      }
      case 'response.function_call_arguments.delta': {
        const item = this.items[event.output_index];
        if (item?.type === 'call') item.arguments += event.delta;
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
        this.finished = this.replyOf(event.response);
        return;
      case 'response.failed':
        throw failedResponseError(event.response);
      default:
        return;
    }
  }

  /** The reply, once the stream ended; a stream that ended without a terminal event was cut short. */
  reply(): ModelReply {
    if (this.finished === undefined) throw new ModelCallError('The OpenAI response stream ended before the response was completed.');
    return this.finished;
  }

  private replyOf(response: OpenAI.Responses.Response): ModelReply {
    const blocks: Block[] = [];
    let refused = false;
    for (const item of this.items) {
      if (item === undefined || item.type === 'other') continue;
      if (item.type === 'text') {
        refused ||= item.refusal;
        blocks.push({ kind: 'text', text: item.text });
      } else if (item.type === 'thinking') {
        blocks.push({ kind: 'thinking', text: item.text });
      } else {
        blocks.push({ kind: 'tool_call', id: item.id, name: item.name, input: parseArguments(item.arguments) });
      }
    }
    return {
      turn: { role: 'assistant', blocks },
      stopReason: stopReasonOf(response, blocks, refused),
      usage: openAIModelUsage(response.usage),
      id: response.id,
      model: response.model,
    };
  }
}

function itemOf(item: OpenAI.Responses.ResponseOutputItem): Item {
  switch (item.type) {
    case 'message': {
      let text = '';
      let refusal = false;
      for (const part of item.content) {
        if (part.type === 'output_text') text += part.text;
        else if (part.type === 'refusal') {
          text += part.refusal;
          refusal = true;
        }
      }
      return { type: 'text', text, refusal };
    }
    case 'function_call':
      return { type: 'call', id: item.call_id, name: item.name, arguments: item.arguments ?? '' };
    case 'reasoning':
      return { type: 'thinking', text: (item.summary ?? []).map((part) => part.text).join('\n\n') };
    default:
      // Hosted tools (web search, code interpreter…) run on OpenAI's side; indusagi never asks for them.
      return { type: 'other' };
  }
}

/**
 * `incomplete` says why it was cut off: the output cap (`max_tokens`) or the content filter (`refusal`).
 * A completed response that calls a function stops for `tool_use`, as the loop expects.
 */
function stopReasonOf(response: OpenAI.Responses.Response, blocks: readonly Block[], refused: boolean): StopReason {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    if (reason === 'max_output_tokens') return 'max_tokens';
    if (reason === 'content_filter') return 'refusal';
    return reason ?? 'incomplete';
  }
  if (blocks.some((block) => block.kind === 'tool_call')) return 'tool_use';
  return refused ? 'refusal' : 'end_turn';
}

/** The model's arguments as JSON, or the raw text when they do not parse (the loop answers it with an error result). */
function parseArguments(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
