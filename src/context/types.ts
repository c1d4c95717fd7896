import type { Turn } from '../runtime/contract/turn.js';
import type { ModelTool } from '../runtime/contract/model.js';
import type { CompletedTurn, ContextManagerLike, ContextTurn, HandledCallLike, PreparedContextLike } from '../runtime/contract/context.js';
import type { MemoryRecord, MemoryScope, RecallOptions } from '../memory/types.js';
import type { SchemaLike } from '../schema/index.js';
import type { AgentContextPart } from '../parts/types.js';
import type { LazyToolsetOptions, ToolBudget } from '../tools/lazy-toolset.js';

// The turn types are the runtime's: the conductor hands them to the manager.
export type { ContextTurn, CompletedTurn };

/** The budget every source and history compaction draw from. */
export interface Budget {
  maxTokens: number;
  /** Kept free for the model's output: sources fill at most `maxTokens - reserve`. */
  reserve: number;
  /** Your token counter (core ships no tokenizer). Must return a finite number >= 0. */
  count: (text: string) => number;
  /**
   * The most the tool list's definitions may take (each tool's JSON, as `count` measures it) when a
   * meta-tool call loads tools: a search loads no tool past it. Default half of `maxTokens - reserve`,
   * leaving the rest to the conversation.
   */
  maxToolTokens?: number;
}

/** What a source reports; the manager turns it into an `AgentContextPart` named after the source. */
export interface SourceEvent {
  /** `'skipped'` is the manager's own report, never a source's. */
  op: Exclude<AgentContextPart['op'], 'skipped'>;
  records?: MemoryRecord[];
  tools?: string[];
}

/** Content a source pulled into the turn: `text` joins the system prompt and is what the budget counts. */
export interface Loaded extends SourceEvent {
  text: string;
}

/** A selection left out because its text would have pushed the total past `maxTokens - reserve`. */
export interface SkippedSelection extends SourceEvent {
  source: string;
  /** What the selection's text would have cost. */
  tokens: number;
}

/** What a source's `handle` returns for a meta-tool call it answers. */
export interface SourceAnswer {
  /** The tool result for the model. */
  result: unknown;
  event?: SourceEvent;
}

/** The interface a source implements. Every member but `name` is optional. */
export interface ContextSource {
  /** Names the source in parts (`'memory'`, `'tools'`); unique within one manager. */
  readonly name: string;
  /**
   * Tools the model should get, in the runtime's `ModelTool` shape (`{ name, description, inputSchema }`),
   * names sanitized. A source returning any owns the tool list. Asked again after each handled call.
   */
  tools?(): ModelTool[];
  /** Text that is always in the system prompt while this source is active (a menu, instructions). */
  system?(turn: ContextTurn): string;
  /** Names of the meta-tools this source answers through `handle`. */
  metaTools?(): string[];
  /** Sanitized -> original names of the source's tools. */
  nameMap?(): ReadonlyMap<string, string>;
  /** Content for this turn; `null` for none. `remaining` is what is left of the budget when asked. */
  select?(turn: ContextTurn, budget: { remaining: number; count: (text: string) => number }): Promise<Loaded | null> | Loaded | null;
  /**
   * Answers a meta-tool call, or returns `undefined` to let the next source try. `budget.remaining` is
   * what the tools it loads may add: `maxToolTokens` less the definitions of the tool list now.
   */
  handle?(
    name: string,
    input: unknown,
    turn?: ContextTurn,
    budget?: ToolBudget,
  ): Promise<SourceAnswer | undefined> | SourceAnswer | undefined;
  /** Runs after the turn (write-backs); `null` when it did nothing worth reporting. */
  commit?(turn: CompletedTurn): Promise<SourceEvent | null> | SourceEvent | null;
}

/** Where the conductor's condensation plugs in, so history draws from the same budget as the sources. */
export interface ContextHistory {
  compact(messages: Turn[], budget: Budget): Promise<Turn[]> | Turn[];
}

export interface ContextManagerOptions {
  /** `reserve` defaults to 0: set it to your max output tokens. */
  budget: Omit<Budget, 'reserve'> & { reserve?: number };
  /** Asked in this order, for content and for meta-tool calls. */
  sources: ContextSource[];
  history?: ContextHistory;
}

/** What `prepare` returns to the agent loop. */
export interface PreparedContext extends PreparedContextLike {
  /** Append to your system prompt: the sources' system texts, then the selections that fit, blank-line separated. */
  system: string;
  /**
   * The first half of `system`: the sources' system texts (menus, instructions), the same turn after
   * turn, so they belong in the cached system prefix. Optional for managers of your own; without it the
   * whole of `system` is treated as changing (sent after the cache breakpoint).
   */
  stableSystem?: string;
  /** The second half of `system`: the selections that fit (recalled memory), which change from turn to turn. */
  selectedSystem?: string;
  /** The tool list to send (`ModelTool`s, names sanitized); `null` when no source owns it (send your own tools). */
  tools: ModelTool[] | null;
  /** Sanitized names of meta-tools: send their calls to `handle`, not to your executor. */
  metaTools: string[];
  /** Sanitized -> original, merged over the sources. */
  nameMap: ReadonlyMap<string, string>;
  /** One part per selection that made it in, in source order: yield them. */
  parts: AgentContextPart[];
  /** Selections left out for the budget, with their cost. */
  skipped: SkippedSelection[];
  /** The running total after selection, and the limit (`maxTokens - reserve`) it was held to. */
  tokens: { used: number; limit: number };
}

/** What `handle` returns for a call a source answered. */
export interface HandledCall extends HandledCallLike {
  source: string;
  /** The tool result for the model. */
  result: unknown;
  /** Parts to yield (a `'loaded'` part when tools became callable). */
  parts: AgentContextPart[];
  /** The tool list for the next model call (same rule as `PreparedContext.tools`). */
  tools: ModelTool[] | null;
}

/** What `createContextManager` returns: the conductor's `ContextManagerLike`, with the budget and typed parts. */
export interface ContextManager extends ContextManagerLike {
  readonly budget: Budget;
  /** Runs `history.compact` if you gave one; otherwise returns `messages` unchanged. */
  compact(messages: Turn[]): Promise<Turn[]>;
  /** Gathers tools, system text and budgeted selections for the turn. */
  prepare(turn: ContextTurn): Promise<PreparedContext>;
  /** Routes a meta-tool call to the first source that answers; `null` if none did (run it as a normal tool). */
  handle(name: string, input: unknown, turn?: ContextTurn): Promise<HandledCall | null>;
  /** Runs every source's `commit`, in order, after the loop; returns the parts to yield. */
  commit(turn: CompletedTurn): Promise<AgentContextPart[]>;
}

export interface MemorySourceOptions {
  /** Passed to `recallMemory` (k, kind, minScore). */
  recall?: RecallOptions;
  /** Picks the facts to save after a turn. Without it the source saves nothing. */
  remember?: (turn: CompletedTurn) => string[] | Promise<string[]>;
  /** Kind given to remembered facts. Default 'fact'. */
  rememberKind?: string;
}

export type LazyToolSourceOptions = LazyToolsetOptions;

export interface WorkingMemoryOptions {
  /** Whose block: `{ resource }` for a user, `{ resource, session }` for one thread, `{}` for one shared by all. */
  scope: MemoryScope;
  /** What the content must match (a JSON Schema or a Standard Schema); the model is shown it as JSON Schema. */
  schema?: SchemaLike;
  /** Most characters of JSON the block may hold. Default 4,000. */
  maxChars?: number;
  /** Names the source and the tool (`update_<name>`), so one agent can keep a user's and a thread's block. Default `working_memory`. */
  name?: string;
}
