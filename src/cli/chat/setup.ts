import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createAgent } from '../../providers/anthropic/index.js';
import type { Agent } from '../../runtime/agent/index.js';
import type { ChatCommand } from '../args.js';
import { openMemory } from '../memory/index.js';
import { openSessionStore, type CliSessionStore } from '../session-store.js';
import { chooseModel, type ModelChoice } from '../model.js';
import { modelCard } from '../../runtime/models/index.js';
import { Workspace } from '../tools/index.js';
import { chatConfig } from './config.js';
import type { Ask, ChatMcp } from '../mcp/chat.js';
import { PROJECT_FILE } from '../mcp/config-files.js';

/** What a chat and a `-p` run both stand on: the store, the model, and agents over them. */
export type ChatSetup = {
  store: CliSessionStore;
  model: ModelChoice;
  /** Notes about the memory file (lines it could not read) and the MCP servers (those that failed), for the user. */
  memoryNotes: string[];
  /** What `/mcp` prints; absent without MCP servers. */
  mcpStatus?: () => string;
  makeAgent(sessionId: string): Agent;
  /** Lets go of the model (its demo server), the memory store and the session store (database pools). */
  close(): Promise<void>;
};

/**
 * Opens the memory (a file or a PostgreSQL URL), the workspace and the MCP servers before the model
 * starts; `close()` lets go of all of them. `ask` puts the `.mcp.json` question to the person (none: not asked).
 */
export async function setUpChat(command: ChatCommand, env: NodeJS.ProcessEnv, cwd: string, ask?: Ask): Promise<ChatSetup> {
  const store = openSessionStore(command.locations.store);
  let memory: Awaited<ReturnType<typeof openMemory>>;
  try {
    memory = await openMemory(command.locations.memory);
  } catch (error) {
    await store.close();
    throw error;
  }
  let model: ModelChoice;
  let workspace: Workspace;
  try {
    workspace = await Workspace.open(cwd);
    model = await chooseModel(env, command.model);
  } catch (error) {
    await Promise.all([memory.close(), store.close()]);
    throw error;
  }
  const config = chatConfig(model, workspace, memory.store);
  let mcp: ChatMcp | null = null;
  const notes = [...memory.notes];
  // MCP is loaded only for a chat that may have servers to start.
  if (command.mcp.length > 0 || existsSync(join(cwd, PROJECT_FILE))) {
    try {
      const opened = await (await import('../mcp/chat.js')).openChatMcp(command.mcp, cwd, env, config.tools ?? [], ask);
      mcp = opened.mcp;
      notes.push(...opened.notes);
    } catch (error) {
      await Promise.all([model.close(), memory.close(), store.close()]);
      throw error;
    }
  }
  if (mcp !== null) {
    const window = model.contextWindow ?? modelCard(model.model).contextWindow;
    config.context = mcp.context(window, model.maxOutputTokens ?? modelCard(model.model).maxOutputTokens);
    config.tools = mcp.tools(config.tools ?? []);
  }
  return {
    store,
    model,
    memoryNotes: notes,
    mcpStatus: mcp?.status,
    makeAgent: (sessionId) => {
      const agent = createAgent({ ...config, sessionId }, { store, invokeModel: model.invokeModel });
      return mcp === null ? agent : mcp.restoring(agent);
    },
    close: async () => {
      await Promise.all([model.close(), memory.close(), store.close(), mcp?.close()]);
    },
  };
}
