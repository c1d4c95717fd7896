import { lazyToolset, SEARCH_TOOLS } from '../tools/lazy-toolset.js';
import type { LazyToolset } from '../tools/lazy-toolset.js';
import type { ContextSource, LazyToolSourceOptions } from './types.js';

/**
 * A source named 'tools' over `lazyToolset`: the menu goes in the system prompt, the tool list is
 * `search_tools` plus pinned and loaded tools (so this source owns the list), and each search that
 * loads tools reports a `'loaded'` event with their original names. `toolset` is the wrapped lazy
 * toolset, for inspection or `reset()`.
 */
export function lazyToolSource(tools: unknown[], opts?: LazyToolSourceOptions): ContextSource & { readonly toolset: LazyToolset } {
  const toolset = lazyToolset(tools, opts);
  return { ...toolsetSource(toolset), toolset };
}

/** The 'tools' source over a lazy toolset you already have (as `runAgent({ lazyToolset })` has). */
export function toolsetSource(toolset: LazyToolset): ContextSource {
  return {
    name: 'tools',
    tools: () => toolset.tools(),
    system: () => toolset.menu,
    metaTools: () => [SEARCH_TOOLS],
    nameMap: () => toolset.nameMap,
    handle(name, input, _turn, budget) {
      if (!toolset.isMetaTool(name)) return undefined;
      const result = toolset.handle(input, budget);
      if (result.found.length === 0) return { result };
      return { result, event: { op: 'loaded', tools: result.found.map((tool) => toolset.nameMap.get(tool.name)!) } };
    },
  };
}
