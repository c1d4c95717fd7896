import type { ModelCard, ModelRequest } from '../../runtime/contract/model.js';
import type { MediaSource, Turn } from '../../runtime/contract/turn.js';
import { modelCard } from '../../runtime/models/cards.js';
import { checkContent, documentText, nativeOutput, strictFit, withOutputInstruction } from '../shared/index.js';
import type {
  SpecCallOptions,
  SpecFilePart,
  SpecMessage,
  SpecProviderOptions,
  SpecTextPart,
  SpecToolCallPart,
  SpecToolResultPart,
} from './spec.js';

/** The specification version the options are written for: they differ in how a file's data is tagged. */
export type SpecVersion = 'v3' | 'v4';

/**
 * The call options for `request`: its turns as the specification's prompt, its tools as function
 * tools, its output cap, abort signal and provider options (passed through as they are: the AI SDK's
 * providers read their own key, `openai`, `anthropic`…, as indusagi's invokers do). A `responseFormat`
 * goes as the specification's `responseFormat: { type: 'json', schema }`, which each provider maps to
 * its API (OpenAI `json_schema`, Claude's structured outputs), or, for a model whose card says
 * `structuredOutput: 'instruction'`, as an instruction in a last system message. Content the card says
 * the model cannot take throws `UnsupportedContentError`. `target` says what the options are for: the
 * specification `version` (default v4), the model's `card` (default the one for `request.model`, the
 * config's model id, which picks the card whatever model object answers) and its `provider` id.
 *
 * `@ai-sdk/openai` asks OpenAI's strict mode for every JSON answer (its `strictJsonSchema` defaults to
 * true), which the API refuses for a schema strict mode cannot take (an optional property). Unless
 * `providerOptions.openai.strictJsonSchema` says otherwise, the schema goes as the OpenAI invoker sends
 * it: fitted to strict mode where it can be (`strictFit`), else non-strict.
 */
export function callOptions(
  request: ModelRequest,
  target: { version?: SpecVersion; card?: ModelCard; provider?: string } = {},
): SpecCallOptions {
  const { version = 'v4', card = modelCard(request.model), provider } = target;
  checkContent(request.messages, card);
  const format = request.responseFormat;
  if (format !== undefined && !nativeOutput(card)) request = withOutputInstruction(request);
  const options: SpecCallOptions = {
    prompt: toPrompt(request, version),
    maxOutputTokens: request.maxOutputTokens,
  };
  if (request.responseFormat !== undefined)
    options.responseFormat = { type: 'json', schema: request.responseFormat.schema as Record<string, unknown> };
  if (request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as Record<string, unknown>,
    }));
    const choice = request.toolChoice ?? 'auto';
    options.toolChoice =
      choice === 'any' ? { type: 'required' } : typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.tool };
  }
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.topP !== undefined) options.topP = request.topP;
  if (request.stopSequences !== undefined) options.stopSequences = request.stopSequences;
  if (request.signal !== undefined) options.abortSignal = request.signal;
  if (request.providerOptions !== undefined) options.providerOptions = request.providerOptions as SpecProviderOptions;
  const answer = options.responseFormat;
  const own = options.providerOptions?.openai;
  if (provider === 'openai' && answer?.schema !== undefined && own?.strictJsonSchema === undefined) {
    const strict = strictFit(answer.schema);
    if (strict !== undefined) answer.schema = strict;
    else options.providerOptions = { ...options.providerOptions, openai: { ...own, strictJsonSchema: false } };
  }
  return options;
}

/**
 * Turns -> the specification's prompt: `system` then `volatileSystem` as system messages; text as
 * user or assistant text; images and PDFs as `file` parts, written for `version` (see `filePart`); a
 * text document as text in a `<document>` tag naming its title; tool calls as assistant `tool-call`
 * parts; tool results as `tool` messages (an error result as `error-text`, named by the call it
 * answers). Thinking is dropped (a provider can only take it back with its own signature, which a turn
 * does not keep for every vendor), as is text with no visible characters. A call whose input never
 * parsed goes as `{}`: the specification wants an object.
 */
export function toPrompt(
  request: Pick<ModelRequest, 'system' | 'volatileSystem' | 'messages'>,
  version: SpecVersion = 'v4',
): SpecMessage[] {
  const prompt: SpecMessage[] = [];
  for (const system of [request.system, request.volatileSystem]) {
    if (system !== undefined && system !== '') prompt.push({ role: 'system', content: system });
  }
  const toolNames = new Map<string, string>();
  for (const turn of request.messages) {
    if (turn.role === 'assistant') pushAssistant(prompt, turn, toolNames, version);
    else pushUser(prompt, turn, toolNames, version);
  }
  return prompt;
}

function pushAssistant(prompt: SpecMessage[], turn: Turn, toolNames: Map<string, string>, version: SpecVersion): void {
  const content: Array<SpecTextPart | SpecFilePart | SpecToolCallPart> = [];
  for (const block of turn.blocks) {
    const part = contentPart(block, version);
    if (part !== undefined) content.push(part);
    else if (block.kind === 'tool_call') {
      toolNames.set(block.id, block.name);
      content.push({ type: 'tool-call', toolCallId: block.id, toolName: block.name, input: isPlainObject(block.input) ? block.input : {} });
    }
  }
  if (content.length > 0) prompt.push({ role: 'assistant', content } as SpecMessage);
}

/** A user turn in block order: a run of results is one `tool` message, a run of text and media one `user` message. */
function pushUser(prompt: SpecMessage[], turn: Turn, toolNames: Map<string, string>, version: SpecVersion): void {
  for (const block of turn.blocks) {
    const last = prompt[prompt.length - 1];
    if (block.kind === 'tool_result') {
      const part: SpecToolResultPart = {
        type: 'tool-result',
        toolCallId: block.callId,
        toolName: toolNames.get(block.callId) ?? '',
        output: block.isError ? { type: 'error-text', value: block.content } : { type: 'text', value: block.content },
      };
      if (last?.role === 'tool') last.content.push(part);
      else prompt.push({ role: 'tool', content: [part] });
      continue;
    }
    const part = contentPart(block, version);
    if (part === undefined) continue;
    if (last?.role === 'user') (last.content as Array<SpecTextPart | SpecFilePart>).push(part);
    else prompt.push({ role: 'user', content: [part] } as SpecMessage);
  }
}

/** A text, image or document block as a prompt part; undefined for blocks that are not content (or text with nothing visible). */
function contentPart(block: Turn['blocks'][number], version: SpecVersion): SpecTextPart | SpecFilePart | undefined {
  if (block.kind === 'text') return block.text.trim() === '' ? undefined : { type: 'text', text: block.text };
  if (block.kind === 'image') return filePart('image', block.source, undefined, version);
  if (block.kind !== 'document') return undefined;
  if (block.source.type === 'text') return { type: 'text', text: documentText(block.source.text, block.title) };
  return filePart('document', block.source, block.title, version);
}

/**
 * An image or a PDF as a `file` part: base64 data as it is, a URL as a `URL`, tagged in v4
 * (`{ type: 'data' | 'url' }`). An image at a URL has no known subtype: `image/*` in v3, `image` in v4,
 * as each version writes "any image". A document's title is its file name.
 */
function filePart(kind: 'image' | 'document', source: MediaSource, title: string | undefined, version: SpecVersion): SpecFilePart {
  const mediaType =
    kind === 'document' ? 'application/pdf' : source.type === 'base64' ? source.mediaType : version === 'v3' ? 'image/*' : 'image';
  const named = title === undefined ? {} : { filename: title };
  if (version === 'v3') return { type: 'file', mediaType, data: source.type === 'url' ? new URL(source.url) : source.data, ...named };
  return {
    type: 'file',
    mediaType,
    data: source.type === 'url' ? { type: 'url', url: new URL(source.url) } : { type: 'data', data: source.data },
    ...named,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
