import type { ModelReply, ModelRequest, ModelUsage, StopReason } from '../../runtime/contract/model.js';
import type { Block } from '../../runtime/contract/turn.js';
import { ModelCallError } from '../../runtime/loop/errors.js';
import { streamFailure } from './failures.js';
import type { SpecFinishReason, SpecStreamPart, SpecUsage } from './spec.js';

type Entry = { block: Block } | { pendingCall: string };

/**
 * Builds one reply from the specification's stream parts. Blocks keep the order their parts started
 * in: text and reasoning by their `*-start` part, a tool call by its `tool-input-start` (or the
 * `tool-call` itself when the provider sends no input deltas). Calls the provider ran itself
 * (`providerExecuted`) are not the loop's to run and are left out. An `error` part is thrown as a typed
 * error; the reply exists only once `finish` arrived.
 */
export class ReplyAssembler {
  private readonly entries: Entry[] = [];
  private readonly texts = new Map<string, Block & { kind: 'text' | 'thinking' }>();
  private finished: { finishReason: SpecFinishReason; usage: SpecUsage } | undefined;
  private began = false;
  private responseId: string | undefined;
  private modelId: string;

  /** `modelId` names the reply's model until the provider's response metadata says which one answered. */
  constructor(
    private readonly hooks: Pick<ModelRequest, 'onText' | 'onFirstChunk'>,
    modelId: string,
  ) {
    this.modelId = modelId;
  }

  observe(received: { type: string }): void {
    if (!this.began) {
      this.began = true;
      this.hooks.onFirstChunk?.();
    }
    // Parts the adapter does not read (sources, files) fall through the switch untouched.
    const part = received as SpecStreamPart;
    switch (part.type) {
      case 'response-metadata':
        if (typeof part.id === 'string' && part.id !== '') this.responseId = part.id;
        if (typeof part.modelId === 'string' && part.modelId !== '') this.modelId = part.modelId;
        return;
      case 'text-start':
      case 'reasoning-start': {
        const block: Block & { kind: 'text' | 'thinking' } = { kind: part.type === 'text-start' ? 'text' : 'thinking', text: '' };
        this.texts.set(part.id, block);
        this.entries.push({ block });
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const block = this.texts.get(part.id);
        if (block === undefined) {
          // A provider that streams deltas without a start: the block begins here.
          const started: Block & { kind: 'text' | 'thinking' } = {
            kind: part.type === 'text-delta' ? 'text' : 'thinking',
            text: part.delta,
          };
          this.texts.set(part.id, started);
          this.entries.push({ block: started });
        } else {
          block.text += part.delta;
        }
        if (part.type === 'text-delta') this.hooks.onText?.(part.delta);
        return;
      }
      case 'tool-input-start':
        if (part.providerExecuted !== true) this.entries.push({ pendingCall: part.id });
        return;
      case 'tool-call': {
        if (part.providerExecuted === true) return;
        const block: Block = { kind: 'tool_call', id: part.toolCallId, name: part.toolName, input: parseInput(part.input) };
        const pending = this.entries.findIndex((entry) => 'pendingCall' in entry && entry.pendingCall === part.toolCallId);
        if (pending >= 0) this.entries[pending] = { block };
        else this.entries.push({ block });
        return;
      }
      case 'error':
        throw streamFailure(part.error);
      case 'finish':
        this.finished = { finishReason: part.finishReason, usage: part.usage };
        return;
      default:
        return;
    }
  }

  /** The reply, once the stream ended; a stream that ended without `finish` was cut short. */
  reply(): ModelReply {
    if (this.finished === undefined) throw new ModelCallError('The AI SDK model’s stream ended without a finish part.');
    const blocks = this.entries.flatMap((entry) => ('block' in entry ? [entry.block] : []));
    const { finishReason, usage } = this.finished;
    if (finishReason.unified === 'error')
      throw new ModelCallError(`The AI SDK model finished with an error (finish reason ${finishReason.raw ?? 'error'}).`);
    const reply: ModelReply = {
      turn: { role: 'assistant', blocks },
      stopReason: stopReasonOf(finishReason, blocks),
      usage: aiSdkModelUsage(usage),
      model: this.modelId,
    };
    if (this.responseId !== undefined) reply.id = this.responseId;
    return reply;
  }
}

/**
 * The unified finish reason in indusagi's terms. The raw reason wins where it says more: Anthropic's
 * `model_context_window_exceeded` (a full window, not the output cap) and `stop_sequence`.
 */
export function stopReasonOf(reason: SpecFinishReason, blocks: readonly Block[]): StopReason {
  if (reason.raw === 'model_context_window_exceeded' || reason.raw === 'stop_sequence') return reason.raw;
  if (reason.unified === 'tool-calls' || blocks.some((block) => block.kind === 'tool_call')) return 'tool_use';
  switch (reason.unified) {
    case 'stop':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    default:
      return reason.raw ?? reason.unified;
  }
}

/** The specification's usage in indusagi's shape: `inputTokens` is the uncached part of the prompt. */
export function aiSdkModelUsage(usage: SpecUsage): ModelUsage {
  const cacheReadTokens = count(usage.inputTokens.cacheRead);
  const cacheWriteTokens = count(usage.inputTokens.cacheWrite);
  const uncached = usage.inputTokens.noCache ?? count(usage.inputTokens.total) - cacheReadTokens - cacheWriteTokens;
  return { inputTokens: Math.max(0, count(uncached)), outputTokens: count(usage.outputTokens.total), cacheWriteTokens, cacheReadTokens };
}

function count(value: number | undefined): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** The call's input as JSON, or the raw text when it does not parse (the loop answers it with an error result). */
function parseInput(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
