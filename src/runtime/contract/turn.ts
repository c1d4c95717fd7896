/** One message of a conversation. A tool result travels in a `user` turn, as in the Anthropic API. */
export type Turn = { role: 'user' | 'assistant'; blocks: Block[] };

export type TextBlock = { kind: 'text'; text: string };
/**
 * The model's reasoning with extended thinking on. `signature` proves it unaltered: within a tool loop
 * the API requires the reply's thinking blocks back exactly as they came, so turns keep them verbatim.
 */
export type ThinkingBlock = { kind: 'thinking'; text: string; signature?: string };
/** Reasoning the API returned encrypted (`data`, opaque): kept and sent back like a thinking block. */
export type RedactedThinkingBlock = { kind: 'redacted_thinking'; data: string };
export type ToolCallBlock = { kind: 'tool_call'; id: string; name: string; input: unknown };
export type ToolResultBlock = { kind: 'tool_result'; callId: string; content: string; isError?: boolean };

/** Where an image's or document's bytes are: inline (base64, with their media type) or at a URL the model's API fetches. */
export type MediaSource = { type: 'base64'; mediaType: string; data: string } | { type: 'url'; url: string };
/** An image in a prompt: JPEG, PNG, GIF or WebP. */
export type ImageBlock = { kind: 'image'; source: MediaSource };
/** A document in a prompt: a PDF (base64 or URL), or plain text. `title` names it to the model. */
export type DocumentBlock = { kind: 'document'; source: MediaSource | { type: 'text'; text: string }; title?: string };

export type Block = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock | ToolResultBlock | ImageBlock | DocumentBlock;

/** What `submit` takes as a prompt besides plain text: text, images and documents, in order. */
export type PromptBlock = TextBlock | ImageBlock | DocumentBlock;

/** The prefix that marks a compaction summary turn (a `user` turn whose first text block starts with it). */
export const COMPACTION_PREFIX = '[condensed earlier context]';

/**
 * A tool's value as the model gets it in a `tool_result`: a string as it is, anything else as JSON. Throws
 * what `JSON.stringify` throws.
 */
export function toolResultContent(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value) ?? '';
}
