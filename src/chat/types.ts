import type { AgentPart } from '../parts/types.js';

/** A message the user sent. `spoken` is true when it came from `send(override)` (e.g. a voice transcript). */
export type AssistantUserItem = { role: 'user'; text: string; spoken?: boolean };

/** The assistant's side of one turn, filled as parts stream in. */
export type AssistantReplyItem = { role: 'assistant'; parts: AgentPart[] };

/** One entry in the thread. */
export type AssistantItem = AssistantUserItem | AssistantReplyItem;

export type AssistantStreamInfo = {
  /** True when the turn was started with `send(override)`, false when it used the input box. */
  spoken: boolean;
  /** Fires when the turn is stopped (`stop()`, or the hook's component unmounting). */
  signal?: AbortSignal;
};

/**
 * Produces the parts of one assistant turn. `history` is the thread before this turn (without the new
 * user item), so a server can rebuild the conversation.
 */
export type AssistantStream = (
  prompt: string,
  history: AssistantItem[],
  info: AssistantStreamInfo,
) => AsyncIterable<AgentPart> | Promise<AsyncIterable<AgentPart>>;

/**
 * Produces parts that continue the thread without a new user message, such as the rest of a run after
 * a tool call was approved.
 */
export type ContinuationStream = (
  history: AssistantItem[],
  info: { signal: AbortSignal },
) => AsyncIterable<AgentPart> | Promise<AsyncIterable<AgentPart>>;

export type AssistantStoreOptions = {
  stream: AssistantStream;
  /** Called with every part that enters the thread, after it was applied. */
  onPart?: (part: AgentPart) => void;
  /** Called once when a turn ends, however it ends. */
  onDone?: () => void;
  /** A thread to start from, e.g. one restored from a server after a reload. */
  initialItems?: AssistantItem[];
  /** Where an error thrown by a `subscribe`d listener goes. Default: rethrown in a microtask. */
  onListenerError?: (error: unknown) => void;
};

/** An immutable snapshot: every change produces a new object, so identity comparison detects change. */
export type AssistantState = {
  readonly items: AssistantItem[];
  readonly input: string;
  readonly busy: boolean;
  /** Why the last turn failed; cleared when the next turn starts or on `reset()`. */
  readonly error: unknown;
};
