import type { ModelRequest } from '../../runtime/contract/model.js';
import type { Turn } from '../../runtime/contract/turn.js';
import { ModelCallError } from '../../runtime/loop/errors.js';
import type { SpecCallOptions, SpecMessage, SpecProviderOptions, SpecTextPart, SpecToolCallPart, SpecToolResultPart } from './spec.js';

/**
 * The call options for `request`: its turns as the specification's prompt, its tools as function
 * tools, its output cap, abort signal and provider options (passed through as they are: the AI SDK's
 * providers read their own key, `openai`, `anthropic`…, as indusagi's invokers do).
 */
export function callOptions(request: ModelRequest): SpecCallOptions {
  const options: SpecCallOptions = {
    prompt: toPrompt(request),
    maxOutputTokens: request.maxOutputTokens,
  };
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
  return options;
}

/**
 * Turns -> the specification's prompt: `system` then `volatileSystem` as system messages; text as
 * user or assistant text; tool calls as assistant `tool-call` parts; tool results as `tool` messages
 * (an error result as `error-text`, named by the call it answers). Thinking is dropped (a provider
 * can only take it back with its own signature, which a turn does not keep for every vendor), as is
 * text with no visible characters. A call whose input never parsed goes as `{}`: the specification
 * wants an object.
 */
export function toPrompt(request: Pick<ModelRequest, 'system' | 'volatileSystem' | 'messages'>): SpecMessage[] {
  const prompt: SpecMessage[] = [];
  for (const system of [request.system, request.volatileSystem]) {
    if (system !== undefined && system !== '') prompt.push({ role: 'system', content: system });
  }
  const toolNames = new Map<string, string>();
  for (const turn of request.messages) {
    if (turn.role === 'assistant') pushAssistant(prompt, turn, toolNames);
    else pushUser(prompt, turn, toolNames);
  }
  return prompt;
}

function pushAssistant(prompt: SpecMessage[], turn: Turn, toolNames: Map<string, string>): void {
  const content: Array<SpecTextPart | SpecToolCallPart> = [];
  for (const block of turn.blocks) {
    refuseMedia(block);
    if (block.kind === 'text' && block.text.trim() !== '') content.push({ type: 'text', text: block.text });
    else if (block.kind === 'tool_call') {
      toolNames.set(block.id, block.name);
      content.push({ type: 'tool-call', toolCallId: block.id, toolName: block.name, input: isPlainObject(block.input) ? block.input : {} });
    }
  }
  if (content.length > 0) prompt.push({ role: 'assistant', content });
}

/** A user turn in block order: a run of results is one `tool` message, a run of text one `user` message. */
function pushUser(prompt: SpecMessage[], turn: Turn, toolNames: Map<string, string>): void {
  for (const block of turn.blocks) {
    refuseMedia(block);
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
    } else if (block.kind === 'text' && block.text.trim() !== '') {
      if (last?.role === 'user') last.content.push({ type: 'text', text: block.text });
      else prompt.push({ role: 'user', content: [{ type: 'text', text: block.text }] });
    }
  }
}

/** Images and documents are not mapped to file parts yet: refusing beats sending the prompt without them. */
function refuseMedia(block: Turn['blocks'][number]): void {
  if (block.kind === 'image' || block.kind === 'document')
    throw new ModelCallError(`fromAiSdk does not send ${block.kind} blocks yet; this conversation holds one.`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
