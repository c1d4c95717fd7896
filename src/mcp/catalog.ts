import type { ContextSource } from '../context/types.js';
import type { ToolDefinition } from '../runtime/contract/tool.js';
import type { Turn } from '../runtime/contract/turn.js';
import { lazyToolset, SEARCH_TOOLS, type LazyToolset } from '../tools/lazy-toolset.js';
import { sanitizeToolName } from '../runtime/tools/names.js';
import { toToolset } from '../tools/toolset.js';
import type { McpChange, McpClient } from './client-types.js';
import { McpConfigError } from './errors.js';
import type { McpServers } from './servers.js';
import type { McpToolDefinition } from './tools.js';

export type McpToolSourceOptions = {
  /** Your own tools, always callable and never searched (an app's built-in tools). Give them to the agent too. */
  tools?: readonly ToolDefinition[];
  /** Original names (`server.tool`) of MCP tools that are always callable and never searched. */
  pin?: readonly string[];
  /** Most tools one search loads. Default 5. */
  k?: number;
  /** Most tool names the menu shows, over all servers; the rest are counted. Default 40. */
  menuSize?: number;
  /** Most servers the menu names; the rest are counted in one line. Default 20. */
  menuServers?: number;
};

/**
 * A context source named `'tools'` over MCP servers' tools (and your own): the model gets
 * `search_tools`, your tools and the pinned ones, and a menu in the system prompt that names servers
 * and some of their tools; each search makes its best matches callable from the next model call.
 */
export type McpToolSource = ContextSource & {
  /** The lazy toolset over the current tool list (it is rebuilt when a server's tools change). */
  readonly toolset: LazyToolset;
  /** Original names of the MCP tools loaded so far (by searches, or by `restore`). */
  loaded(): string[];
  /**
   * Loads again the tools a stored conversation had loaded: those its `search_tools` calls found and
   * those it called. Call it with the messages of a resumed session (`(await agent.resume(id)).messages`),
   * before the next run. Returns the original names it loaded.
   */
  restore(messages: readonly Turn[]): string[];
};

type Catalog = { clients(): readonly McpClient[]; tools(): McpToolDefinition[]; onChange(listener: () => void): void };

/**
 * The MCP servers' tools behind `search_tools` (see `McpToolSource`), so ten servers with five hundred
 * tools cost the model a short menu until it needs a tool. The menu groups tools by server and stays
 * within `menuSize` names and `menuServers` lines however many tools there are; it changes only when a
 * server's tool list does, not as tools load. Give the agent every tool it may run, `[...options.tools, ...servers.tools()]`:
 * it runs only tools of its own config.
 */
export function mcpToolSource(from: McpServers | McpClient | readonly McpClient[], options: McpToolSourceOptions = {}): McpToolSource {
  const catalog = catalogOf(from);
  const local = [...(options.tools ?? [])];
  const k = options.k ?? 5;
  const menuSize = options.menuSize ?? 40;
  const menuServers = options.menuServers ?? 20;
  for (const [value, what] of [
    [menuSize, 'menuSize'],
    [menuServers, 'menuServers'],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) throw new McpConfigError(`mcpToolSource: ${what} must be a whole number >= 0.`);
  }
  const userPins = new Set(options.pin ?? []);
  // Tools loaded before the current toolset was built (searches of an earlier list, `restore`): kept loaded as pins.
  const carried = new Set<string>();
  let toolset: LazyToolset;
  let menu = '';
  let stale = true;

  const build = (first = false): void => {
    const localNames = new Set(local.map((tool) => tool.name));
    const localModelNames = new Set(local.map((tool) => sanitizeToolName(tool.name)));
    // Your own tool keeps its name; an MCP tool that would reach the model under it is left out.
    const remote = catalog.tools().filter((tool) => !localNames.has(tool.name) && !localModelNames.has(sanitizeToolName(tool.name)));
    const known = new Set(remote.map((tool) => tool.name));
    if (first)
      for (const name of userPins)
        if (!known.has(name)) throw new McpConfigError(`mcpToolSource: pin names "${name}", which no server offers.`);
    // After a list change a pinned tool may be gone; it comes back pinned if its server offers it again.
    const pins = [...userPins].filter((name) => known.has(name));
    if (toolset !== undefined) for (const name of toolset.loaded()) carried.add(name);
    for (const name of carried) if (!known.has(name)) carried.delete(name);
    const pinned = [...localNames, ...pins, ...[...carried].filter((name) => !userPins.has(name))];
    toolset = lazyToolset(toToolset([...local, ...remote]).tools, { pin: pinned, k, menuSize: 0 });
    // Loaded tools stay in the menu: it changes with the servers' lists, never with what was loaded.
    menu = menuOf(
      catalog.clients(),
      remote.filter((tool) => !userPins.has(tool.name)),
      menuSize,
      menuServers,
    );
    stale = false;
  };
  const current = (): LazyToolset => {
    if (stale) build();
    return toolset;
  };
  catalog.onChange(() => (stale = true));
  build(true);

  return {
    name: 'tools',
    get toolset() {
      return current();
    },
    tools: () => current().tools(),
    system: () => {
      current();
      return menu;
    },
    metaTools: () => [SEARCH_TOOLS],
    nameMap: () => current().nameMap,
    handle(name, input, _turn, budget) {
      const lazy = current();
      if (!lazy.isMetaTool(name)) return undefined;
      const result = lazy.handle(input, budget);
      if (result.found.length === 0) return { result };
      return { result, event: { op: 'loaded', tools: result.found.map((tool) => lazy.nameMap.get(tool.name)!) } };
    },
    loaded() {
      // Built first: a rebuild moves what the old toolset loaded into `carried`.
      const searched = current().loaded();
      return [...carried, ...searched];
    },
    restore(messages) {
      const lazy = current();
      const known = new Set(lazy.nameMap.values());
      const found = new Set<string>();
      const searches = new Set<string>();
      for (const turn of messages) {
        for (const block of turn.blocks) {
          if (block.kind === 'tool_call') {
            if (block.name === SEARCH_TOOLS) searches.add(block.id);
            else if (known.has(block.name)) found.add(block.name);
          } else if (block.kind === 'tool_result' && searches.has(block.callId) && !block.isError) {
            for (const name of foundNames(block.content)) {
              const original = lazy.nameMap.get(name);
              if (original !== undefined) found.add(original);
            }
          }
        }
      }
      const already = new Set([...lazy.pinned, ...lazy.loaded()]);
      const restored = [...found].filter((name) => !already.has(name));
      if (restored.length === 0) return [];
      for (const name of restored) carried.add(name);
      build();
      return restored;
    },
  };
}

function foundNames(content: string): string[] {
  try {
    const parsed = JSON.parse(content) as { found?: Array<{ name?: unknown }> };
    return Array.isArray(parsed.found) ? parsed.found.flatMap((tool) => (typeof tool?.name === 'string' ? [tool.name] : [])) : [];
  } catch {
    return [];
  }
}

/**
 * The menu: a line per server with its tool count and some of its tools' names. Names are dealt out a
 * server at a time until `menuSize` are shown, so each server gets a share; servers past `menuServers`
 * are counted in one line. Its size is bounded whatever the number of tools.
 */
export function menuOf(
  clients: readonly McpClient[],
  searchable: readonly McpToolDefinition[],
  menuSize: number,
  menuServers: number,
): string {
  if (searchable.length === 0) return '';
  const byServer = new Map<string, string[]>();
  for (const client of clients) byServer.set(client.name, []);
  for (const tool of searchable) {
    let names = byServer.get(tool.mcp.server);
    if (names === undefined) byServer.set(tool.mcp.server, (names = []));
    names.push(tool.mcp.name);
  }
  const servers = [...byServer].filter(([, names]) => names.length > 0);
  const shown = servers.slice(0, menuServers);
  const picks = shown.map(() => 0);
  for (let placed = 0, progress = true; placed < menuSize && progress;) {
    progress = false;
    for (let i = 0; i < shown.length && placed < menuSize; i++) {
      if (picks[i] < shown[i][1].length) {
        picks[i]++;
        placed++;
        progress = true;
      }
    }
  }
  const lines = [`More tools are available but not loaded. Call ${SEARCH_TOOLS} with a few keywords (or a tool name below) to load them.`];
  lines.push('MCP servers, with some of their tools:');
  shown.forEach(([server, names], i) => {
    const listed = names.slice(0, picks[i]);
    const more = names.length - listed.length;
    const tail = listed.length === 0 ? '' : `: ${listed.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
    lines.push(`- ${server} (${names.length} tool${names.length === 1 ? '' : 's'})${tail}`);
  });
  const rest = servers.slice(menuServers);
  if (rest.length > 0) {
    const tools = rest.reduce((sum, [, names]) => sum + names.length, 0);
    lines.push(`- and ${rest.length} more server${rest.length === 1 ? '' : 's'} with ${tools} tools`);
  }
  return lines.join('\n');
}

function catalogOf(from: McpServers | McpClient | readonly McpClient[]): Catalog {
  if (isServers(from)) {
    return {
      clients: () => [...from.clients.values()],
      tools: () => from.tools(),
      onChange: (listener) => void from.onChange((_server, change) => change.kind === 'tools' && listener()),
    };
  }
  const clients = Array.isArray(from) ? [...(from as readonly McpClient[])] : [from as McpClient];
  for (const client of clients) {
    if (typeof client?.tools !== 'function' || typeof client.onChange !== 'function')
      throw new McpConfigError('mcpToolSource takes what connectMcpServers or connectMcp returned (or an array of clients).');
  }
  return {
    clients: () => clients,
    tools: () => clients.flatMap((client) => [...client.tools()]),
    onChange: (listener) => {
      for (const client of clients) client.onChange((change: McpChange) => change.kind === 'tools' && listener());
    },
  };
}

function isServers(value: unknown): value is McpServers {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as McpServers).clients instanceof Map &&
    typeof (value as McpServers).status === 'function'
  );
}
