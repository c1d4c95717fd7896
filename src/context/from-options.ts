import type { ContextManagerLike } from '../runtime/contract/context.js';
import { estimateTextTokens } from '../runtime/compaction/estimate.js';
import type { MemoryStore, RecallOptions } from '../memory/types.js';
import type { AgentPart } from '../parts/types.js';
import type { LazyToolset } from '../tools/lazy-toolset.js';
import { createContextManager } from './manager.js';
import { memorySource } from './memory-source.js';
import { toolsetSource } from './lazy-tool-source.js';
import type { CompletedTurn, ContextSource } from './types.js';

/** A run's context as options (`runAgent`'s): a manager, or the memory and lazy tools it would otherwise own. */
export type ContextOptions = {
  /** Owns recall, tool loading and write-backs; with it, the four options below are ignored. */
  context?: ContextManagerLike;
  /** Recalls matching memory into the system prompt (one `memory` `recalled` part). */
  memory?: MemoryStore;
  /** How `memory` is searched. */
  recall?: RecallOptions;
  /** Picks facts to save after the turn (one `memory` `saved` part per saved fact). */
  remember?: (turn: CompletedTurn) => string[] | Promise<string[]>;
  /** Keeps the tool schemas out of context behind `search_tools`. */
  lazyToolset?: LazyToolset;
};

/** A run's context wired: the manager to drive (none: the run has no context layer), and the parts its reports make. */
export type WiredContext = {
  manager: ContextManagerLike | undefined;
  /** What one part of the run's stream becomes: itself, or the standalone options' own reports (or nothing). */
  parts(part: AgentPart): AgentPart[];
};

/**
 * The context of a run given as options, per the reference: `context` when given (its reports are
 * `context` parts, and the other four options are ignored); otherwise a manager of `memory`,
 * `recall`, `remember` and `lazyToolset`, whose memory and tool menu fit in `window` (the model's
 * context window less what is kept for the reply), reporting as the reference says those options do
 * (see `standaloneParts`).
 */
export function contextFromOptions(opts: ContextOptions, window: { maxTokens: number; reserve: number }): WiredContext {
  if (opts.context !== undefined) return { manager: opts.context, parts: (part) => [part] };
  const sources: ContextSource[] = [];
  if (opts.memory !== undefined) sources.push(memorySource(opts.memory, { recall: opts.recall, remember: opts.remember }));
  if (opts.lazyToolset !== undefined) sources.push(toolsetSource(opts.lazyToolset));
  if (sources.length === 0) return { manager: undefined, parts: (part) => [part] };
  // Counted as the conductor's condensation counts text, so the two agree on what fits.
  const manager = createContextManager({ budget: { ...window, count: estimateTextTokens }, sources });
  return { manager, parts: standaloneParts };
}

/**
 * How the standalone options report, per the reference: a recall as one `memory` `recalled` part, each
 * saved fact as its own `memory` `saved` part; a `search_tools` call only as its own `tool` part (so the
 * manager's `loaded` reports are left out). A recall too big for the window is not sent and, as the
 * memory part has no op for it, not reported. Parts other than context parts pass through.
 */
export function standaloneParts(part: AgentPart): AgentPart[] {
  if (part.type !== 'context') return [part];
  if (part.source !== 'memory' || part.op === 'loaded' || part.op === 'skipped') return [];
  const records = part.records ?? [];
  if (part.op === 'saved') return records.map((record): AgentPart => ({ type: 'memory', op: 'saved', records: [record] }));
  return [{ type: 'memory', op: part.op, records }];
}
