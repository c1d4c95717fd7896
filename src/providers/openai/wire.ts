import type OpenAI from 'openai';
import type { ModelRequest, ModelUsage } from '../../runtime/contract/model.js';
import type { Turn } from '../../runtime/contract/turn.js';
import { openaiOptions, type OpenAIProviderOptions, type ReasoningEffort } from './options.js';
import { ModelCallError } from '../../runtime/loop/errors.js';

/** One input item as indusagi sends it: a message, a function call, or a function call's output. */
export type InputItem =
  | { type: 'message'; role: 'user' | 'assistant'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/** The Responses API request indusagi sends: a subset of `ResponseCreateParamsStreaming` every `openai` 6 and 7 accepts. */
export type ResponsesStreamBody = {
  model: string;
  input: InputItem[];
  instructions?: string;
  tools?: Array<{ type: 'function'; name: string; description: string; parameters: Record<string, unknown>; strict: boolean }>;
  max_output_tokens: number;
  stream: true;
  store: boolean;
  reasoning?: { effort: ReasoningEffort };
  prompt_cache_key?: string;
  temperature?: number;
  top_p?: number;
  tool_choice?: 'auto' | 'required' | 'none' | { type: 'function'; name: string };
};

/**
 * The Responses API request for `request`, streamed and stateless: the whole conversation goes as
 * `input` on every call and `store: false` keeps OpenAI from retaining it, as indusagi keeps the
 * history itself. `system` and `volatileSystem` go as `instructions`. `defaults` are the invoker's
 * options; the request's `providerOptions.openai` wins over them. Throws `OpenAIOptionsError` for
 * options it does not know.
 */
export function requestBody(request: ModelRequest, defaults: OpenAIProviderOptions = {}): ResponsesStreamBody {
  const options = { ...defaults, ...openaiOptions(request.providerOptions) };
  const body: ResponsesStreamBody = {
    model: request.model,
    input: toInputItems(request.messages),
    max_output_tokens: request.maxOutputTokens,
    stream: true,
    store: false,
  };
  const instructions = [request.system, request.volatileSystem].filter((text) => text !== undefined && text !== '').join('\n\n');
  if (instructions !== '') body.instructions = instructions;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema as Record<string, unknown>,
      // Strict mode needs every property required and no additional ones: most schemas are not written so.
      strict: false,
    }));
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  const choice = request.toolChoice;
  if (choice !== undefined && request.tools.length > 0) {
    body.tool_choice = choice === 'any' ? 'required' : typeof choice === 'string' ? choice : { type: 'function', name: choice.tool };
  }
  if (options.reasoningEffort !== undefined) body.reasoning = { effort: options.reasoningEffort };
  if (options.promptCacheKey !== undefined && request.cacheable !== false) body.prompt_cache_key = options.promptCacheKey;
  return body;
}

/**
 * Turns -> input items, block by block in order: text as a message of its turn's role, a tool call as a
 * `function_call` item, a tool result as a `function_call_output`. Thinking is dropped: a reasoning item
 * can only be sent back with the encrypted content this stateless invoker does not keep (redacted
 * thinking likewise). Text with no visible characters is dropped too (the API refuses empty messages).
 * Images and documents throw `ModelCallError`: they are not mapped yet, and are never dropped unseen.
 */
export function toInputItems(turns: readonly Turn[]): InputItem[] {
  const items: InputItem[] = [];
  for (const turn of turns) {
    for (const block of turn.blocks) {
      switch (block.kind) {
        case 'text':
          if (block.text.trim() !== '') items.push({ type: 'message', role: turn.role, content: block.text });
          break;
        case 'thinking':
        case 'redacted_thinking':
          break;
        case 'image':
        case 'document':
          // Not mapped to input_image/input_file yet: refusing beats sending the prompt without them.
          throw new ModelCallError(`The OpenAI invoker does not send ${block.kind} blocks yet; this conversation holds one.`);
        case 'tool_call':
          // A call whose input never parsed is kept as its raw text: send back exactly what the model wrote.
          items.push({
            type: 'function_call',
            call_id: block.id,
            name: block.name,
            arguments: typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {}),
          });
          break;
        case 'tool_result':
          // The API has no error flag for a result; the content itself says what went wrong.
          items.push({ type: 'function_call_output', call_id: block.callId, output: block.content });
          break;
      }
    }
  }
  return items;
}

/**
 * The API's usage in indusagi's shape. `input_tokens` counts the whole prompt, cache reads and writes
 * included; indusagi's `inputTokens` is only the uncached rest.
 */
export function toModelUsage(usage: OpenAI.Responses.ResponseUsage | null | undefined): ModelUsage {
  const details: Partial<OpenAI.Responses.ResponseUsage.InputTokensDetails> = usage?.input_tokens_details ?? {};
  const cacheReadTokens = count(details.cached_tokens);
  const cacheWriteTokens = count(details.cache_write_tokens);
  return {
    inputTokens: Math.max(0, count(usage?.input_tokens) - cacheReadTokens - cacheWriteTokens),
    outputTokens: count(usage?.output_tokens),
    cacheWriteTokens,
    cacheReadTokens,
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}
