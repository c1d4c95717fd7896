/** One message of a conversation. A tool result travels in a `user` turn, as in the Anthropic API. */
export type Turn = { role: 'user' | 'assistant'; blocks: Block[] };

export type TextBlock = { kind: 'text'; text: string };
export type ThinkingBlock = { kind: 'thinking'; text: string; signature?: string };
export type ToolCallBlock = { kind: 'tool_call'; id: string; name: string; input: unknown };
export type ToolResultBlock = { kind: 'tool_result'; callId: string; content: string; isError?: boolean };

export type Block = TextBlock | ThinkingBlock | ToolCallBlock | ToolResultBlock;

/** The prefix that marks a condensation summary turn (a `user` turn whose first text block starts with it). */
export const CONDENSED_PREFIX = '[condensed earlier context]';
