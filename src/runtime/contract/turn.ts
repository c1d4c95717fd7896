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

export type Block = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock | ToolResultBlock;

/** The prefix that marks a condensation summary turn (a `user` turn whose first text block starts with it). */
export const CONDENSED_PREFIX = '[condensed earlier context]';
