import { createContextManager } from '../../context/manager.js';
import { memorySource } from '../../context/memory-source.js';
import type { CompletedTurn, ContextManager, ContextSource } from '../../context/types.js';
import type { MemoryStore, RecallOptions } from '../../memory/types.js';
import type { AgentPart } from '../../parts/types.js';
import { SEARCH_TOOLS, type LazyToolset } from '../../tools/lazy-toolset.js';

export type StandaloneContextOptions = {
  memory?: MemoryStore;
  recall?: RecallOptions;
  remember?: (turn: CompletedTurn) => string[] | Promise<string[]>;
  lazyToolset?: LazyToolset;
  /** The model's window, the budget the recalled memory and the tool menu must fit in. */
  contextWindow: number;
  maxOutputTokens: number;
};

/**
 * `runAgent`'s `memory`/`recall`/`remember`/`lazyToolset` options (used without `context`) as a context
 * manager of their own, so one code path drives both. Undefined when none of them is set.
 */
export function standaloneContext(opts: StandaloneContextOptions): ContextManager | undefined {
  const sources: ContextSource[] = [];
  if (opts.memory !== undefined) sources.push(memorySource(opts.memory, { recall: opts.recall, remember: opts.remember }));
  if (opts.lazyToolset !== undefined) sources.push(lazyToolsetSource(opts.lazyToolset));
  if (sources.length === 0) return undefined;
  return createContextManager({
    budget: { maxTokens: opts.contextWindow, reserve: opts.maxOutputTokens, count: (text) => Math.ceil(text.length / 4) },
    sources,
  });
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

function lazyToolsetSource(lazy: LazyToolset): ContextSource {
  return {
    name: 'tools',
    tools: () => lazy.tools(),
    system: () => lazy.menu,
    metaTools: () => [SEARCH_TOOLS],
    nameMap: () => lazy.nameMap,
    handle: (name, input) => (lazy.isMetaTool(name) ? { result: lazy.handle(input) } : undefined),
  };
}
