import { DemoRequestError } from './errors.js';

/** The parts of an Anthropic Messages request body the demo model reads. */
export type DemoRequest = {
  model: string;
  system: string;
  messages: WireMessage[];
  tools: WireTool[];
  maxTokens: number;
};

export type WireMessage = { role: 'user' | 'assistant'; content: WireBlock[] };
/** A tool on offer: its name, and its input schema (which the demo reads to fill in a `call X with Y`). */
export type WireTool = { name: string; inputSchema?: Record<string, unknown> };

/** Content blocks as they travel; kinds the demo does not act on are kept as `other`. */
export type WireBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean }
  | { type: 'other' };

/**
 * Validates a decoded request body. Anything the real API would refuse and the demo needs (no
 * messages, a role it does not know, a malformed block) is a `DemoRequestError`, never a guess.
 */
export function parseDemoRequest(raw: unknown): DemoRequest {
  const body = asRecord(raw, 'the request body');
  const model = body.model;
  if (typeof model !== 'string' || model === '') throw new DemoRequestError('model: a non-empty string is required');
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new DemoRequestError('max_tokens: a positive integer is required');
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new DemoRequestError('messages: at least one message is required');
  }
  const tools = body.tools === undefined ? [] : body.tools;
  if (!Array.isArray(tools)) throw new DemoRequestError('tools: an array is expected');
  return {
    model,
    system: parseSystem(body.system),
    messages: body.messages.map((m, i) => parseMessage(m, `messages[${i}]`)),
    tools: tools.map((t, i) => parseTool(t, `tools[${i}]`)),
    maxTokens,
  };
}

function parseSystem(system: unknown): string {
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) return system.map((b, i) => textOfBlock(b, `system[${i}]`)).join('\n');
  throw new DemoRequestError('system: a string or an array of text blocks is expected');
}

function parseMessage(raw: unknown, where: string): WireMessage {
  const message = asRecord(raw, where);
  if (message.role !== 'user' && message.role !== 'assistant') {
    throw new DemoRequestError(`${where}.role: "user" or "assistant" is expected`);
  }
  const content = message.content;
  if (typeof content === 'string') return { role: message.role, content: [{ type: 'text', text: content }] };
  if (!Array.isArray(content)) throw new DemoRequestError(`${where}.content: a string or an array is expected`);
  return { role: message.role, content: content.map((b, i) => parseBlock(b, `${where}.content[${i}]`)) };
}

function parseBlock(raw: unknown, where: string): WireBlock {
  const block = asRecord(raw, where);
  switch (block.type) {
    case 'text':
      return { type: 'text', text: textOfBlock(block, where) };
    case 'tool_use':
      if (typeof block.id !== 'string' || typeof block.name !== 'string') {
        throw new DemoRequestError(`${where}: a tool_use block needs a string id and name`);
      }
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      if (typeof block.tool_use_id !== 'string') throw new DemoRequestError(`${where}.tool_use_id: a string is required`);
      return {
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        content: resultContent(block.content, where),
        is_error: block.is_error === true,
      };
    default:
      if (typeof block.type !== 'string') throw new DemoRequestError(`${where}.type: a string is required`);
      return { type: 'other' };
  }
}

function resultContent(content: unknown, where: string): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b, i) => asRecord(b, `${where}.content[${i}]`))
      .filter((b) => b.type === 'text')
      .map((b, i) => textOfBlock(b, `${where}.content[${i}]`))
      .join('\n');
  }
  throw new DemoRequestError(`${where}.content: a string or an array of blocks is expected`);
}

function parseTool(raw: unknown, where: string): WireTool {
  const tool = asRecord(raw, where);
  if (typeof tool.name !== 'string' || tool.name === '') throw new DemoRequestError(`${where}.name: a non-empty string is required`);
  const schema = tool.input_schema;
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema)
    ? { name: tool.name, inputSchema: schema as Record<string, unknown> }
    : { name: tool.name };
}

function textOfBlock(raw: unknown, where: string): string {
  const block = asRecord(raw, where);
  if (typeof block.text !== 'string') throw new DemoRequestError(`${where}.text: a string is required`);
  return block.text;
}

function asRecord(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DemoRequestError(`${where}: an object is expected`);
  }
  return value as Record<string, unknown>;
}

/** The text blocks of a message, joined. */
export function messageText(message: WireMessage): string {
  return message.content
    .filter((b): b is Extract<WireBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}
