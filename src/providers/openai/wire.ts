import type OpenAI from 'openai';
import type { ModelCard, ModelRequest, ModelUsage, ResponseFormat } from '../../runtime/contract/model.js';
import type { MediaSource, Turn } from '../../runtime/contract/turn.js';
import { modelCard } from '../../runtime/models/cards.js';
import {
  checkContent,
  documentText,
  isObjectSchema,
  nativeOutput,
  strictFit,
  UnsupportedContentError,
  withOutputInstruction,
} from '../shared/index.js';
import { openaiOptions, type OpenAIProviderOptions, type ReasoningEffort } from './options.js';

/** An image or a file in a user message, as the Responses API takes it: inline as a data URL, or by URL. */
export type InputMediaPart =
  | { type: 'input_image'; image_url: string; detail: 'auto' }
  | { type: 'input_file'; file_data: string; filename: string }
  | { type: 'input_file'; file_url: string; filename?: string };

/** One input item as indusagi sends it: a message (text, or one image or file), a function call, or a function call's output. */
export type InputItem =
  | { type: 'message'; role: 'user' | 'assistant'; content: string }
  | { type: 'message'; role: 'user'; content: InputMediaPart[] }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };

/** `text.format` for a required JSON answer: the schema, strict where strict mode can take it. */
export type JsonSchemaFormat = { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean };

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
  text?: { format: JsonSchemaFormat };
};

/**
 * The Responses API request for `request`, streamed and stateless: the whole conversation goes as
 * `input` on every call and `store: false` keeps OpenAI from retaining it, as indusagi keeps the
 * history itself. `system` and `volatileSystem` go as `instructions`. `defaults` are the invoker's
 * options; the request's `providerOptions.openai` wins over them. Throws `OpenAIOptionsError` for
 * options it does not know. The model's card (`card`, by default the one for `request.model`) decides
 * what it takes: content it says the model cannot take throws `UnsupportedContentError`; a
 * `responseFormat` goes as `text.format` (see `jsonSchemaFormat`), or, for a card that says
 * `structuredOutput: 'instruction'` or a schema whose root is not an object, as an instruction at the
 * end of `instructions`.
 */
export function openAIRequestBody(
  request: ModelRequest,
  defaults: OpenAIProviderOptions = {},
  card: ModelCard = modelCard(request.model),
): ResponsesStreamBody {
  const options = { ...defaults, ...openaiOptions(request.providerOptions) };
  const format = request.responseFormat;
  const native = format !== undefined && nativeOutput(card) ? jsonSchemaFormat(format) : undefined;
  if (format !== undefined && native === undefined) request = withOutputInstruction(request);
  const body: ResponsesStreamBody = {
    model: request.model,
    input: toInputItems(request.messages, card),
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
  if (native !== undefined) body.text = { format: native };
  if (options.reasoningEffort !== undefined) body.reasoning = { effort: options.reasoningEffort };
  if (options.promptCacheKey !== undefined && request.cacheable !== false) body.prompt_cache_key = options.promptCacheKey;
  return body;
}

/**
 * Turns -> input items, block by block in order: text as a message of its turn's role, a tool call as a
 * `function_call` item, a tool result as a `function_call_output`. Thinking is dropped: a reasoning item
 * can only be sent back with the encrypted content this stateless invoker does not keep (redacted
 * thinking likewise). Text with no visible characters is dropped too (the API refuses empty messages).
 * An image or a document goes as a user message of its own (see `mediaPart`); a text document as text,
 * in a `<document>` tag naming its title. Media the card says the model cannot take, or media in an
 * assistant turn (the API takes them only from the user), throws `UnsupportedContentError`.
 */
export function toInputItems(turns: readonly Turn[], card?: ModelCard): InputItem[] {
  if (card !== undefined) checkContent(turns, card);
  const items: InputItem[] = [];
  turns.forEach((turn, index) => {
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
          if (turn.role !== 'user') {
            throw new UnsupportedContentError(
              block.kind === 'image' ? 'images' : 'documents',
              `The OpenAI Responses API takes images and files only from the user; message ${index}, an assistant turn, holds ${block.kind === 'image' ? 'an image' : 'a document'}.`,
            );
          }
          if (block.kind === 'image') items.push({ type: 'message', role: 'user', content: [mediaPart(block.kind, block.source)] });
          else if (block.source.type === 'text')
            items.push({ type: 'message', role: 'user', content: documentText(block.source.text, block.title) });
          else items.push({ type: 'message', role: 'user', content: [mediaPart(block.kind, block.source, block.title)] });
          break;
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
  });
  return items;
}

/**
 * An image as `input_image` (a base64 one as a data URL), a PDF as `input_file` (`file_data` as a data
 * URL, or `file_url`), named by its title (the API wants a file name with inline data).
 */
function mediaPart(kind: 'image' | 'document', source: MediaSource, title?: string): InputMediaPart {
  if (kind === 'image')
    return { type: 'input_image', detail: 'auto', image_url: source.type === 'url' ? source.url : dataUrl(source.mediaType, source.data) };
  if (source.type === 'url') return { type: 'input_file', file_url: source.url, ...(title !== undefined && { filename: title }) };
  const name = title ?? 'document';
  return { type: 'input_file', filename: /\.pdf$/i.test(name) ? name : `${name}.pdf`, file_data: dataUrl('application/pdf', source.data) };
}

function dataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

/**
 * `text.format` for a required answer: `json_schema`, strict when strict mode can take the schema (see
 * `strictFit`: objects left open are closed), else the schema as it is, a hint the model follows without
 * the guarantee. Undefined when the root is not an object, which the API does not take: the schema then
 * goes as an instruction.
 */
export function jsonSchemaFormat(format: ResponseFormat): JsonSchemaFormat | undefined {
  const schema = format.schema as Record<string, unknown>;
  if (!isObjectSchema(schema)) return undefined;
  const strict = strictFit(schema);
  return { type: 'json_schema', name: 'output', schema: strict ?? schema, strict: strict !== undefined };
}

/**
 * The API's usage in indusagi's shape. `input_tokens` counts the whole prompt, cache reads and writes
 * included; indusagi's `inputTokens` is only the uncached rest.
 */
export function openAIModelUsage(usage: OpenAI.Responses.ResponseUsage | null | undefined): ModelUsage {
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
