import type { ModelTool } from './model.js';
import type { Turn } from './turn.js';

/**
 * What a context source knows about the current request. Called `Turn` in the reference; named
 * `ContextTurn` because `Turn` is already the runtime's message type.
 */
export interface ContextTurn {
  /** The user's latest prompt: what memory recalls against. */
  prompt: string;
  /** The conversation as the model will see it (after `compact`), latest prompt included. */
  messages: Turn[];
  /** Your own system prompt, so the budget counts it. */
  system?: string;
}

/** A turn after the model has answered: what `commit` (and so `remember`) sees. */
export interface CompletedTurn extends ContextTurn {
  /** The final assistant text of the turn. */
  text: string;
}

/**
 * A report of the context layer: memory recalled or saved, tools loaded, a selection `skipped` for the
 * budget (`tokens` is what it would have cost). The conductor publishes each as a `context` run event;
 * `AgentContextPart` is this with `records` typed as memory records.
 */
export interface ContextReport {
  type: 'context';
  source: string;
  op: 'recalled' | 'loaded' | 'saved' | 'skipped';
  records?: unknown[];
  tools?: string[];
  tokens?: number;
}

/** What the conductor reads of `prepare` (the context layer's `PreparedContext` says more). */
export interface PreparedContextLike {
  /** Added to the system prompt: `stableSystem` then `selectedSystem`, when the manager splits them. */
  system: string;
  /** The part of `system` that is the same turn after turn (menus, instructions): sent in the cached prefix. */
  stableSystem?: string;
  /** The part of `system` that changes from turn to turn (recalled memory): sent after the cached prefix. */
  selectedSystem?: string;
  /** The tool list to send, names sanitized; `null` to send the agent's own tools. */
  tools: ModelTool[] | null;
  /** Sanitized names of the meta-tools whose calls go to `handle`. */
  metaTools: string[];
  /** Sanitized -> original names of the tools the manager lists. */
  nameMap: ReadonlyMap<string, string>;
  parts: ContextReport[];
}

/** What the conductor reads of a meta-tool call `handle` answered. */
export interface HandledCallLike {
  /** The tool result for the model. */
  result: unknown;
  parts: ContextReport[];
  /** The tool list from the next model call on (same rule as `PreparedContextLike.tools`). */
  tools: ModelTool[] | null;
}

/**
 * The context layer as the conductor drives it, once per run: `compact`, `prepare`, every tool call
 * offered to `handle` first, `commit` after a settled run (see docs/context.md). `createContextManager`
 * (`indusagi`) builds one; tools travel in the runtime's own `ModelTool` shape.
 */
export interface ContextManagerLike {
  compact(messages: Turn[]): Promise<Turn[]>;
  prepare(turn: ContextTurn): Promise<PreparedContextLike>;
  /** `null` when no source answers: the call is an ordinary tool call. */
  handle(name: string, input: unknown, turn?: ContextTurn): Promise<HandledCallLike | null>;
  commit(turn: CompletedTurn): Promise<ContextReport[]>;
}
