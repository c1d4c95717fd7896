import type { Agent } from '../../runtime/agent/index.js';
import type { RunSnapshot } from '../../runtime/contract/events.js';
import type { ToolDefinition } from '../../runtime/contract/tool.js';
import { createContextManager, type ContextManager } from '../../context/index.js';
import {
  connectMcpServers,
  mcpToolSource,
  McpToolCollisionError,
  type McpServers,
  type McpServerConfig,
  type McpToolSource,
} from '../../mcp/index.js';
import { sanitizeToolName } from '../../runtime/tools/index.js';
import { DEFAULT_TRIGGER_RATIO } from '../../runtime/compaction/index.js';
import { terminalText } from '../safe-text.js';
import type { TrustStore } from '../trust.js';
import { describeEntries, readProjectFile, readServersFile, workspaceConsentFor, PROJECT_FILE } from './config-files.js';

/** Asks the person at the terminal a yes/no question; absent where nobody can answer (piped, `-p`). */
export type Ask = (question: string) => Promise<boolean>;

/** The MCP servers of a chat: their tools behind a catalog, what the chat should say, and how to let them go. */
export type ChatMcp = {
  servers: McpServers;
  catalog: McpToolSource;
  /** The built-in tools and every server's, for the agent's config. */
  tools(builtIn: readonly ToolDefinition[]): ToolDefinition[];
  /** A context manager over the catalog, sized like the agent's condensation. */
  context(window: number, maxOutputTokens: number): ContextManager;
  /** The agent, with the catalog restored from every session it opens. */
  restoring(agent: Agent): Agent;
  /** What `/mcp` prints. */
  status(): string;
  close(): Promise<void>;
};

/**
 * Starts the chat's MCP servers: those of the `--mcp` files, and those of the workspace `root`'s
 * `.mcp.json` when the person allowed it. The `.mcp.json` question shows everything each server runs
 * with and is asked once per version of the file, before anything is spawned; the answer is kept in
 * the user's config folder (`trust.store`), never in the workspace, which a cloned repository fills.
 * A run with nobody to ask (`-p`, piped) starts its servers only if they were allowed before. A server that fails is reported and the chat goes on without it. `mcp` is null when
 * no server is to start. `notes` are lines for the chat to show first (servers that failed, a
 * `.mcp.json` left out).
 */
export async function openChatMcp(
  files: readonly string[],
  root: string,
  env: NodeJS.ProcessEnv,
  builtIn: readonly ToolDefinition[],
  trust: { store: TrustStore; trusted: boolean },
  ask?: Ask,
): Promise<{ mcp: ChatMcp | null; notes: string[] }> {
  const notes: string[] = [];
  const servers: Record<string, McpServerConfig> = {};
  const add = (from: Record<string, McpServerConfig>, where: string) => {
    for (const [name, config] of Object.entries(from)) {
      if (servers[name] !== undefined)
        notes.push(`MCP server "${name}" of ${where} is left out: an earlier file has a server of that name`);
      else servers[name] = config;
    }
  };
  for (const file of files) add((await readServersFile(file, env)).servers, file);
  const project = await readProjectFile(root, env);
  if (project !== null && !files.includes(project.path) && Object.keys(project.servers).length > 0) {
    // The user's own answer first; a workspace's kept answer only in a workspace the user trusted.
    let allowed = await trust.store.consentFor(root, project.digest);
    if (allowed === undefined && trust.trusted) allowed = await workspaceConsentFor(root, project);
    if (allowed === undefined && ask !== undefined) {
      const lines = describeEntries(project.json).map((line) => `  ${terminalText(line)}`);
      allowed = await ask([`${PROJECT_FILE} in this folder starts these MCP servers:`, ...lines, 'Start them? [y/N] '].join('\n'));
      if (trust.store.dir === null) notes.push(`the answer about ${PROJECT_FILE} is not kept: neither XDG_CONFIG_HOME nor HOME is set`);
      else await trust.store.recordConsent(root, project.digest, allowed);
    }
    if (allowed === true) add(project.servers, PROJECT_FILE);
    else if (allowed === undefined)
      notes.push(
        `the MCP servers of ${PROJECT_FILE} are not started: allow them once in an interactive chat, or pass --mcp ${PROJECT_FILE}`,
      );
  }
  if (Object.keys(servers).length === 0) return { mcp: null, notes };

  const connected = await connectMcpServers(servers, { onServerError: 'report' });
  // A server tool the model would see under a built-in's name makes the agent's tool list unusable:
  // stop here, servers closed, rather than leave the chat or -p with no agent and live child processes.
  const builtInNames = new Map(builtIn.map((tool) => [sanitizeToolName(tool.name), tool.name]));
  for (const tool of connected.tools()) {
    const builtInName = builtInNames.get(sanitizeToolName(tool.name));
    if (builtInName !== undefined) {
      await connected.close();
      throw new McpToolCollisionError(builtInName, tool.name, sanitizeToolName(tool.name), { firstIsOwn: true });
    }
  }
  for (const status of connected.status()) {
    if (status.state === 'failed') notes.push(`MCP server "${status.name}" did not start: ${status.error}`);
    for (const refused of status.refused) notes.push(`MCP server "${status.name}": tool "${refused.name}" left out, ${refused.reason}`);
  }
  const catalog = mcpToolSource(connected, { tools: builtIn });
  const mcp: ChatMcp = {
    servers: connected,
    catalog,
    tools: (own) => [...own, ...connected.tools()],
    context: (window, maxOutputTokens) =>
      // The condenser's own numbers, so memory, tools and history draw on one budget (docs/context.md).
      createContextManager({
        budget: {
          maxTokens: Math.floor(window * DEFAULT_TRIGGER_RATIO),
          reserve: maxOutputTokens,
          count: (text) => Math.ceil(text.length / 4),
        },
        sources: [catalog],
      }),
    restoring: (agent) => restoring(agent, catalog),
    status: () => statusText(connected, catalog),
    close: () => connected.close(),
  };
  return { mcp, notes };
}

// Every way a session is opened gives back the tools its conversation had loaded.
function restoring(agent: Agent, catalog: McpToolSource): Agent {
  const restore = (snapshot: RunSnapshot) => {
    catalog.restore(snapshot.messages);
    return snapshot;
  };
  return new Proxy(agent, {
    get(target, property, receiver) {
      if (property === 'resume') return (sessionId: string) => target.resume(sessionId).then(restore);
      if (property === 'branchFrom') return (nodeId: string) => target.branchFrom(nodeId).then(restore);
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function statusText(servers: McpServers, catalog: McpToolSource): string {
  const lines = servers.status().map((status) => {
    const counted = status.state === 'failed' ? '' : `, ${status.tools} tool${status.tools === 1 ? '' : 's'}`;
    const refused = status.refused.length > 0 ? `, ${status.refused.length} refused` : '';
    const error = status.error !== undefined ? ` (${status.error})` : '';
    return terminalText(`${status.name}  ${status.state} over ${status.transport}${counted}${refused}${error}`);
  });
  const loaded = catalog.loaded();
  lines.push(
    loaded.length === 0 ? 'no MCP tool loaded yet: the model loads them with search_tools' : terminalText(`loaded: ${loaded.join(', ')}`),
  );
  return `${lines.join('\n')}\n`;
}
